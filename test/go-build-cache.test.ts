/**
 * Go's build cache across sandboxed runs (`buildCache`, go-build-cache.ts), with real bubblewrap and the
 * machine's go: the base's run (`warm`) fills the checkout's cache; a change's run (`copy`) reads a throwaway
 * copy — a file its tests write into `$GOCACHE` never reaches the cache, while the same write from a `warm` run
 * does (the twin). Durations are printed, not asserted (a shared machine).
 */
import { mkdtemp, readdir, realpath, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BwrapRunner, detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
import { findExecutable } from '../src/adapters/command-runner/sandbox-host.js';

const sandbox = await detectSandbox();
const go = await findExecutable('go');
const LONG = 600_000;

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
  it('a warm run fills the cache and a copy run reads it; a copy run cannot write into it, a warm run can', async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'loop-gocache-')));
    const module = join(base, 'module');
    const cache = join(base, 'state', 'go-build-cache');
    await (await import('node:fs/promises')).mkdir(module, { recursive: true });
    await writeFile(join(module, 'go.mod'), 'module example.com/cachedemo\n\ngo 1.21\n');
    await writeFile(join(module, 'demo_test.go'), TEST);
    const runner = new BwrapRunner({ goBuildCache: cache });
    const run = async (buildCache: 'warm' | 'copy', marker = '') => {
      const evidence = await runner.run({ command: 'go test ./...', timeoutMs: LONG }, { cwd: module, timeoutMs: LONG, buildCache, env: { MARKER: marker, GOFLAGS: '-count=1' } });
      expect(evidence.exitCode, evidence.output).toBe(0);
      return evidence.durationMs;
    };
    expect(existsSync(cache)).toBe(false);
    const warming = await run('warm');
    expect((await readdir(cache)).length).toBeGreaterThan(0);
    const copied = await run('copy', 'from-a-change');
    expect(existsSync(join(cache, 'from-a-change'))).toBe(false);
    await run('warm', 'from-the-base');
    expect(existsSync(join(cache, 'from-the-base'))).toBe(true);
    console.log(`go test in bwrap: warming the empty cache ${warming} ms, from a copy of the warm cache ${copied} ms`);
  }, LONG);
});
