/**
 * The baseline cache of the git workspace: `.loop-runtime/baseline-cache.json` in the checkout, one entry per
 * (engine key + environment fingerprint), the newest 64 kept. Machine-local, like the rest of `.loop-runtime/`.
 * Unreadable or foreign content reads as a miss; a write replaces the file whole (temporary + rename), and a
 * write lost to a concurrent tick only costs a second run.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BaselineCache } from '../../core/ports/index.js';

const DEPENDENCY_DIRECTORIES = ['node_modules', '.venv', 'venv'];

export const BASELINE_CACHE_FILE = '.loop-runtime/baseline-cache.json';
const KEEP = 64;

interface CacheFile {
  version: 1;
  entries: Array<{ key: string; value: unknown }>;
}

/** What the commands' environment is made of beyond the commit: installed dependencies, PATH, node itself. */
async function environmentFingerprint(root: string): Promise<string> {
  const parts: string[] = [process.version, process.env['PATH'] ?? '', process.env['VIRTUAL_ENV'] ?? ''];
  // The checkout's own directories, whether or not this worktree is shown them right now (a pooled worktree may hold a link).
  for (const source of DEPENDENCY_DIRECTORIES.map((name) => join(root, name))) {
    // A reinstall rewrites these: the directory itself and the installers' own records.
    for (const path of [source, join(source, '.package-lock.json'), join(source, 'pyvenv.cfg'), join(source, '.modules.yaml')]) {
      const info = await stat(path).catch(() => null);
      parts.push(`${path}:${info ? `${info.ino}:${info.mtimeMs}:${info.size}` : '-'}`);
    }
  }
  return parts.join('\n');
}

async function load(file: string): Promise<CacheFile> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<CacheFile>;
    if (parsed.version === 1 && Array.isArray(parsed.entries)) return { version: 1, entries: parsed.entries.filter((entry) => typeof entry?.key === 'string') };
  } catch {
    // Missing or unreadable: a miss.
  }
  return { version: 1, entries: [] };
}

export function fileBaselineCache(root: string): BaselineCache {
  const file = join(root, BASELINE_CACHE_FILE);
  const fullKey = async (key: string) => createHash('sha256').update(key).update('\0').update(await environmentFingerprint(root)).digest('hex');
  return {
    async read(key) {
      const wanted = await fullKey(key);
      return (await load(file)).entries.find((entry) => entry.key === wanted)?.value ?? null;
    },
    async write(key, value) {
      const wanted = await fullKey(key);
      const current = await load(file);
      const entries = [...current.entries.filter((entry) => entry.key !== wanted), { key: wanted, value }].slice(-KEEP);
      await mkdir(join(root, '.loop-runtime'), { recursive: true });
      const temporary = `${file}.${randomUUID()}.tmp`;
      await writeFile(temporary, `${JSON.stringify({ version: 1, entries } satisfies CacheFile)}\n`);
      await rename(temporary, file);
    },
  };
}
