/**
 * A Go build cache that already holds the standard library the suite's Go projects import, as a checkout's cache
 * (`goBuildCache`, src/adapters/command-runner/go-build-cache.ts) holds it after its first tick. A cold cache makes
 * the first `go test` compile those packages (~25 s of CPU); three files did that each.
 *
 * The suite run fills one seed once (the first file to ask, under a file lock; the others wait for it), by running
 * `go test` in bubblewrap the way verification does (a `warm` run), so the entries match what the sandbox looks up.
 * Each caller gets its own copy: a file's base runs write into its cache, as one checkout's do, and no file reads
 * what another's tests wrote. The projects themselves are never in the seed (go keys a module's packages by their
 * directory), so every tick still compiles and runs its own tree's tests.
 */
import { execFile } from 'node:child_process';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { BwrapRunner } from '../src/adapters/command-runner/bwrap-runner.js';
import { withFileLock } from '../src/adapters/fs/file-lock.js';

const execFileAsync = promisify(execFile);

/** What the Go code under test/ imports (go-humanize in test/fixtures/cheats/go, the small modules in test files). */
const STANDARD_PACKAGES = ['bytes', 'errors', 'fmt', 'math', 'math/big', 'math/rand', 'os', 'path/filepath', 'reflect', 'regexp', 'sort', 'strconv', 'strings', 'testing', 'testing/quick', 'time', 'unicode'];
const FILLED = 'filled';
const LONG = 20 * 60_000;

const exists = (path: string) => access(path).then(() => true, () => false);

async function fill(seed: string, cache: string): Promise<void> {
  const module = join(seed, 'module');
  // recursive: a fill that failed before left it (go's cache itself is safe to fill again).
  await mkdir(module, { recursive: true });
  await writeFile(join(module, 'go.mod'), 'module example.com/seed\n\ngo 1.21\n');
  const imports = STANDARD_PACKAGES.map((name) => `\t_ "${name}"\n`).join('');
  await writeFile(join(module, 'seed_test.go'), `package seed\n\nimport (\n${imports})\n\nfunc TestNothing(t *testing.T) {}\n`.replace('\t_ "testing"\n', '\t"testing"\n'));
  const evidence = await new BwrapRunner({ goBuildCache: cache }).run({ command: 'go test ./...', timeoutMs: LONG }, { cwd: module, timeoutMs: LONG, buildCache: 'warm' });
  if (evidence.exitCode !== 0) throw new Error(`filling the Go build cache seed failed (exit ${evidence.exitCode}):\n${evidence.output}`);
}

/**
 * `<parent>/go-build`, to pass as `goBuildCache` (BwrapRunner's setting): a copy of the suite's warm cache. `parent`
 * is the caller's (it removes it). Outside vitest's integration project (no seed provided) the cache starts empty.
 *
 * @example
 * ```ts
 * const runner = new BwrapRunner({ goBuildCache: await seededGoBuildCache(await tempDir('go-cache-')) });
 * ```
 */
export async function seededGoBuildCache(parent: string): Promise<string> {
  const own = join(parent, 'go-build');
  const seed = inject('goBuildCacheSeed');
  if (!seed) return own;
  const cache = join(seed, 'go-build');
  await withFileLock(
    seed,
    async () => {
      if (await exists(join(seed, FILLED))) return;
      await fill(seed, cache);
      await writeFile(join(seed, FILLED), '');
    },
    { staleMs: 120_000, waitMs: LONG },
  );
  await mkdir(own, { recursive: true });
  // cp -a, not node's fs.cp: ~10,000 small files, half the CPU.
  await execFileAsync('cp', ['-a', `${cache}/.`, own]);
  return own;
}
