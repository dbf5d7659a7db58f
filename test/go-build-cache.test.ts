/**
 * Go's build cache across sandboxed runs (`buildCache`, go-build-cache.ts), with real bubblewrap and the
 * machine's go: the base's run (`warm`) creates the checkout's cache when missing and adds to it; a change's run
 * (`copy`) reads a throwaway copy — a file its tests write into `$GOCACHE` never reaches the cache, while the same
 * write from a `warm` run does (the twin). The cache starts as the suite's warm copy (test/go-build-cache-seed.ts),
 * so the standard library is not compiled again here. Durations are printed, not asserted (a shared machine).
 */
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BwrapRunner, detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
import { findExecutable } from '../src/adapters/command-runner/sandbox-host.js';
import { seededGoBuildCache } from './go-build-cache-seed.js';

const sandbox = await detectSandbox();
const go = await findExecutable('go');
const LONG = 600_000;
const made: string[] = [];
const scratch = async () => {
  const directory = await realpath(await mkdtemp(join(tmpdir(), 'loop-gocache-')));
  made.push(directory);
  return directory;
};
afterAll(() => Promise.all(made.map((directory) => rm(directory, { recursive: true, force: true }))));

const TEST = `package cachedemo

import (
\t"os"
\t"path/filepath"
\t"testing"
)

func TestWritesIntoCache(t *testing.T) {
\tif marker := os.Getenv("MARKER"); marker != "" {
\t\tif err := os.WriteFile(filepath.Join(os.Getenv("GOCACHE"), marker), []byte("poison"), 0o644); err != nil {
\t\t\tt.Fatal(err)
\t\t}
\t}
}
`;

describe.runIf(sandbox.kind === 'bwrap' && go !== null)('the Go build cache across sandboxed runs', () => {
  it('a warm run creates a missing cache and points GOCACHE at it', async () => {
    const base = await scratch();
    const module = join(base, 'module');
    const cache = join(base, 'state', 'go-build-cache');
    await mkdir(module, { recursive: true });
    await writeFile(join(module, 'go.mod'), 'module example.com/cachedemo\n\ngo 1.21\n');
    expect(existsSync(cache)).toBe(false);
    // `go env` compiles nothing: what is proven is the directory and the variable, not go's use of them (below).
    const evidence = await new BwrapRunner({ goBuildCache: cache }).run({ command: 'go env GOCACHE', timeoutMs: LONG }, { cwd: module, timeoutMs: LONG, buildCache: 'warm' });
    expect(evidence.exitCode, evidence.output).toBe(0);
    expect(evidence.output.trim()).toBe(cache);
    expect(existsSync(cache)).toBe(true);
  }, LONG);

  it('a warm run adds to the cache and a copy run reads it; a copy run cannot write into it, a warm run can', async () => {
    const base = await scratch();
    const module = join(base, 'module');
    await mkdir(module, { recursive: true });
    await writeFile(join(module, 'go.mod'), 'module example.com/cachedemo\n\ngo 1.21\n');
    await writeFile(join(module, 'demo_test.go'), TEST);
    // The standard library already in it, as a checkout's cache is after its first tick (test/go-build-cache-seed.ts).
    const cache = await seededGoBuildCache(join(base, 'state'));
    const entries = async () => (await readdir(cache, { recursive: true })).length;
    const runner = new BwrapRunner({ goBuildCache: cache });
    // Each run first counts the files in the cache it was given, so a copy run shows it got the whole cache.
    const run = async (buildCache: 'warm' | 'copy', marker = '') => {
      const evidence = await runner.run({ command: 'find "$GOCACHE" -type f | wc -l && go test ./...', timeoutMs: LONG }, { cwd: module, timeoutMs: LONG, buildCache, env: { MARKER: marker, GOFLAGS: '-count=1' } });
      expect(evidence.exitCode, evidence.output).toBe(0);
      return { ms: evidence.durationMs, files: Number(evidence.output.trim().split('\n')[0]) };
    };
    const files = async () => (await readdir(cache, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).length;
    const before = await entries();
    const warming = await run('warm');
    const warmed = await entries();
    // The module's own package and test binary: go keys them by the module's directory, so they are new here.
    expect(warmed).toBeGreaterThan(before);
    const copied = await run('copy', 'from-a-change');
    expect(copied.files).toBe(await files());
    expect(existsSync(join(cache, 'from-a-change'))).toBe(false);
    expect(await entries()).toBe(warmed);
    await run('warm', 'from-the-base');
    expect(existsSync(join(cache, 'from-the-base'))).toBe(true);
    expect(warming.files).toBeGreaterThan(0);
    console.log(`go test in bwrap: the module into the warm cache ${warming.ms} ms, from a copy of it ${copied.ms} ms`);
  }, LONG);
});
