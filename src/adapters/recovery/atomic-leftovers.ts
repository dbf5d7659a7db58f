/**
 * Temporary files an interrupted atomic write leaves behind. write-file-atomic
 * writes `<file>.<number>` beside its target and renames it over the target;
 * a kill -9 between the two leaves the temporary file, which `git status`
 * shows and `git add -A` would commit. It must stay in the target's directory
 * (a rename is atomic only within one file system), so the fix is to remove
 * these at the start of the next tick — only the temporaries of files
 * loop-runtime owns, matched exactly as `<owned file name>.<digits>` — and to
 * keep the root-level ones out of `git status` meanwhile (.git/info/exclude).
 */
import { appendFile, copyFile, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import { withFileLock } from '../fs/atomic-file.js';
import { WorktreeStore } from '../workspace/git-worktree-store.js';

/** Every file loop-runtime writes atomically for a loop's plan (absolute paths). */
export function ownedAtomicFiles(root: string, plan: ExecutionPlan, worktreesDir: string | null = null): string[] {
  const files = [
    plan.files.state,
    plan.files.runLog,
    plan.files.ledger,
    '.loop-runtime/spend.jsonl',
    '.loop-runtime/deliveries.json',
    '.loop-runtime/outcomes.jsonl',
    '.loop-runtime/state-manifest.json',
    '.loop-runtime/state-sync.json',
  ].map((file) => resolve(root, file));
  files.push(new WorktreeStore(root, worktreesDir).manifestPath);
  return [...new Set(files)];
}

/** True when `name` is exactly `<owned>.<digits>`: write-file-atomic's temporary name for `owned`. */
export function isAtomicTemporary(name: string, owned: string): boolean {
  return name.length > owned.length + 1 && name.startsWith(`${owned}.`) && /^\d+$/.test(name.slice(owned.length + 1));
}

/** Where recovery moves what it takes out of the way (inside `.loop-runtime/`, which is not committed). */
export const RECOVERED_DIR = '.loop-runtime/recovered';

async function setAside(root: string, path: string): Promise<void> {
  const directory = join(root, RECOVERED_DIR);
  await mkdir(directory, { recursive: true });
  const target = join(directory, `${basename(path)}.${Date.now().toString(36)}`);
  try {
    await rename(path, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(path, target);
    await rm(path, { force: true });
  }
}

/**
 * Moves aside the temporaries of `files` left by interrupted writes (into `.loop-runtime/recovered/`). Each file's are removed under that file's
 * lock, so a live writer (which always writes under it) is never mid-write. Returns the removed paths,
 * relative to `root`.
 *
 * @example
 * ```ts
 * await removeAtomicLeftovers('/repo', ownedAtomicFiles('/repo', plan)); // → ['loop-ledger.json.700828677']
 * ```
 */
export async function removeAtomicLeftovers(root: string, files: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  const listings = new Map<string, string[]>();
  for (const file of files) {
    const directory = dirname(file);
    if (!listings.has(directory)) listings.set(directory, await readdir(directory).catch(() => []));
    const owned = basename(file);
    if (!listings.get(directory)!.some((name) => isAtomicTemporary(name, owned))) continue;
    await withFileLock(file, async () => {
      for (const name of await readdir(directory).catch(() => [])) {
        if (!isAtomicTemporary(name, owned)) continue;
        const path = join(directory, name);
        if (!(await stat(path).catch(() => null))?.isFile()) continue;
        // Moved aside, never deleted: `<file>.<digits>` is write-file-atomic's temporary name, but a human's
        // dated copy (`loop-run-log.md.20261101`) looks the same, and recovery must lose nothing.
        await setAside(root, path);
        // Inside the checkout: relative to it; elsewhere (the worktree manifest in the state directory): absolute.
        const inside = relative(root, path);
        removed.push(inside.startsWith('..') || isAbsolute(inside) ? path : inside.split(sep).join('/'));
      }
    });
  }
  return removed.sort();
}

/**
 * Adds `/<file>.[0-9]*` to `.git/info/exclude` for the owned files inside the repository, so a temporary
 * left by a kill is never shown or committed before the next tick removes it. Only for a repository whose
 * `.git` is a directory (a linked worktree's exclude file is shared and left alone); never `.gitignore`.
 */
export async function excludeAtomicTemporaries(root: string, files: readonly string[]): Promise<void> {
  const gitDirectory = join(root, '.git');
  if (!(await stat(gitDirectory).catch(() => null))?.isDirectory()) return;
  const excludePath = join(gitDirectory, 'info', 'exclude');
  const current = await readFile(excludePath, 'utf8').catch(() => '');
  const present = new Set(current.split(/\r?\n/));
  const wanted = files
    .map((file) => relative(root, file))
    .filter((inside) => inside !== '' && !inside.startsWith('..') && !isAbsolute(inside))
    .map((inside) => `/${inside.split(sep).join('/').replace(/([*?[\]\\!#])/g, '\\$1')}.[0-9]*`)
    .filter((line) => !present.has(line));
  if (wanted.length === 0) return;
  await mkdir(dirname(excludePath), { recursive: true });
  await appendFile(excludePath, `${current === '' || current.endsWith('\n') ? '' : '\n'}${wanted.join('\n')}\n`);
}
