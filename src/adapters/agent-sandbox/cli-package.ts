/**
 * What of an agent CLI's installation the sandbox must show, read-only: the
 * package root of the binary's real path (node_modules/.bin entries are
 * symlinks), plus its platform packages (`@openai/codex-linux-x64` beside
 * `@openai/codex`, `opencode-linux-x64` beside `opencode-ai`), which hold the
 * native binaries the launcher starts. Nothing else of node_modules, and
 * nothing of the checkout that holds it.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** The directory holding `package.json` nearest above `file`, stopping at a `node_modules` boundary. */
async function packageRootOf(file: string): Promise<string | null> {
  let directory = path.dirname(file);
  while (directory !== path.dirname(directory)) {
    if (path.basename(directory) === 'node_modules') return null;
    if (await isFile(path.join(directory, 'package.json'))) return directory;
    directory = path.dirname(directory);
  }
  return null;
}

/**
 * @example
 * ```ts
 * await cliReadablePaths('node_modules/.bin/codex');
 * // ['/repo/node_modules/@openai/codex', '/repo/node_modules/@openai/codex-linux-x64']
 * ```
 */
export async function cliReadablePaths(binary: string): Promise<string[]> {
  const real = await realpath(binary).catch(() => binary);
  const root = await packageRootOf(real);
  if (!root) return [path.dirname(real)];
  const parent = path.dirname(root);
  const name = path.basename(root);
  const siblings = await readdir(parent).catch(() => [] as string[]);
  // Platform packages share the launcher's name as a prefix (`codex-linux-x64`) or its base (`opencode-ai` → `opencode-linux-x64`).
  const base = name.replace(/-ai$/, '');
  const platform = siblings.filter((entry) => entry !== name && (entry.startsWith(`${name}-`) || entry.startsWith(`${base}-${process.platform}`)));
  return [root, ...platform.map((entry) => path.join(parent, entry))];
}
