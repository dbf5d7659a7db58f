/**
 * Go's build cache across sandboxed runs (`CommandRunOptions.buildCache`). A cold `GOCACHE` makes every
 * `go test` compile the standard library's test dependencies again (35–70 s on a loaded machine, ~2 s warm).
 * The cache belongs to loop-runtime, one per checkout in its state directory, never the user's. Only runs of
 * the base commit write it (`warm`); a change's run gets a fresh copy (`copy`, no hard links) that is removed
 * after, because go trusts its cache: an entry a change's tests wrote under the action id of a base package
 * would be compiled into every later run's test binary.
 */
import { access, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandRunOptions } from '../../core/ports/index.js';
import { checkoutStateDir } from '../workspace/worktrees-location.js';
import { checkoutOfWorktree } from './repository-secrets.js';

const exists = (path: string) => access(path).then(() => true, () => false);

/**
 * A full copy (no hard links) of `from`'s contents into `to`, for every change's run: `cp -a` takes half the CPU of
 * node's `fs.cp` on a cache's ~10,000 small files (0.8 s against 1.6 s for 62 MB) and reflinks where the filesystem
 * can. node's copy where `cp` fails.
 */
async function copyTree(from: string, to: string): Promise<void> {
  const { execa } = await import('execa');
  const copied = await execa('cp', ['-a', `${from}/.`, to], { reject: false, stdin: 'ignore' });
  if (copied.exitCode !== 0) await cp(from, to, { recursive: true, force: true });
}

/** Where the checkout's Go build cache lives: `<state>/<checkout>-<hash>/go-build-cache`; null when no checkout is known. */
export async function goBuildCacheDir(cwd: string, checkout: string | undefined, env: Record<string, string | undefined>): Promise<string | null> {
  const root = checkout ?? (await checkoutOfWorktree(cwd));
  return root ? join(checkoutStateDir(root, env), 'go-build-cache') : null;
}

/**
 * Runs `run` with `GOCACHE` at the checkout's cache (`warm`) or a copy of it (`copy`), as a writable root; only
 * for a Go module (`go.mod`/`go.work` in `cwd`). Otherwise runs it as asked (a cold per-run cache).
 *
 * @example
 * ```ts
 * return withGoBuildCache(options, await goBuildCacheDir(options.cwd, undefined, process.env), (inner) => this.run(command, inner));
 * ```
 */
export async function withGoBuildCache<T>(options: CommandRunOptions, cacheDir: string | null, run: (options: CommandRunOptions) => Promise<T>): Promise<T> {
  const { buildCache, ...rest } = options;
  if (!buildCache || cacheDir === null || !((await exists(join(options.cwd, 'go.mod'))) || (await exists(join(options.cwd, 'go.work'))))) return run(rest);
  const withCache = (directory: string) => run({ ...rest, writableRoots: [...(rest.writableRoots ?? []), directory], env: { ...rest.env, GOCACHE: directory } });
  if (buildCache === 'warm') {
    await mkdir(cacheDir, { recursive: true });
    return withCache(cacheDir);
  }
  if (!(await exists(cacheDir))) return run(rest);
  const copy = await mkdtemp(join(tmpdir(), 'loop-runtime-gocache-'));
  try {
    await copyTree(cacheDir, copy);
    return await withCache(copy);
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}
