/**
 * Keeps what loop-runtime writes into a checkout out of the user's commits:
 * `.loop-runtime/` (leases, the console's token, the spend journal, event
 * logs) and the legacy `.loop-worktrees/`, listed in the repository's own
 * `.git/info/exclude` — git's per-clone ignore file, which no commit carries
 * and no teammate sees. A `git add -A` in the checkout then never stages the
 * console's secret.
 *
 * Plain file reads and one append, no git process: every command that opens
 * the store calls it. Best effort: outside a git repository, or with an
 * unwritable git directory, nothing is written and nothing fails.
 */
import { appendFile, mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Directories loop-runtime writes inside a checkout, relative to the project root. */
export const RUNTIME_DIRECTORIES = ['.loop-runtime', '.loop-worktrees'] as const;

const HEADER = '# loop-runtime: machine-local state (leases, the console token, journals); never committed';

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

/** The repository's top level and its common git directory (a linked worktree's `.git` is a file), or null. */
export async function findGitDirectories(start: string): Promise<{ topLevel: string; commonDir: string } | null> {
  for (let directory = resolve(start); ; directory = dirname(directory)) {
    const dotGit = join(directory, '.git');
    const kind = await stat(dotGit).catch(() => null);
    if (kind?.isDirectory()) return { topLevel: directory, commonDir: dotGit };
    if (kind?.isFile()) {
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec((await readOrNull(dotGit)) ?? '');
      if (!pointer) return null;
      const gitDir = resolve(directory, pointer[1] as string);
      const common = (await readOrNull(join(gitDir, 'commondir')))?.trim();
      return { topLevel: directory, commonDir: common ? resolve(gitDir, common) : gitDir };
    }
    if (dirname(directory) === directory) return null;
  }
}

/**
 * @example
 * ```ts
 * await excludeRuntimeFiles('/src/api'); // .git/info/exclude gains "/.loop-runtime/" and "/.loop-worktrees/"
 * ```
 */
export async function excludeRuntimeFiles(projectRoot: string): Promise<void> {
  try {
    const found = await findGitDirectories(projectRoot);
    if (!found) return;
    const prefix = relative(found.topLevel, resolve(projectRoot)).split(sep).join('/');
    if (prefix.startsWith('..') || isAbsolute(prefix)) return;
    const patterns = RUNTIME_DIRECTORIES.map((name) => `/${prefix ? `${prefix}/` : ''}${name}/`);
    const file = join(found.commonDir, 'info', 'exclude');
    const current = (await readOrNull(file)) ?? '';
    const present = new Set(current.split(/\r?\n/).map((line) => line.trim()));
    const missing = patterns.filter((pattern) => !present.has(pattern));
    if (missing.length === 0) return;
    await mkdir(dirname(file), { recursive: true });
    const lead = current === '' || current.endsWith('\n') ? '' : '\n';
    await appendFile(file, `${lead}${present.has(HEADER) ? '' : `${HEADER}\n`}${missing.join('\n')}\n`);
  } catch {
    // Best effort: the files stay uncommitted only if the user's ignore rules say so.
  }
}
