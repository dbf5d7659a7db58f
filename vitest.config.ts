import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './test/sequencer.js';

/**
 * Test files run in parallel forks. Most of a file's time is spent waiting on
 * subprocesses (agent CLIs, git, bwrap, Postgres) and servers, so four forks
 * keep two cores busy; vitest's default (`cpus - 1`) ran one file at a time on
 * a 2-core machine. `LOOP_RUNTIME_TEST_WORKERS` overrides it (1 = serial).
 *
 * Parallel-safe means every file owns what it touches: temporary directories
 * from `mkdtemp` (never a fixed /tmp or $HOME path), ports from the kernel
 * (listen on 0), its own Postgres cluster (`test/pg-cluster.ts`), no global git
 * config, and `dist/` read-only (the build is `npm test`'s first step; no test
 * rebuilds it). See docs/design/build.md, "The test suite".
 *
 * Timeouts are ceilings for a hung test, not speed targets: the suite must pass
 * on a machine under 4× CPU load, where a file that takes 30 s idle takes
 * minutes. Waits inside tests wait on events or on progress (test/wait-for.ts).
 *
 * Files start longest first, by the times in test/durations.json (test/sequencer.ts): on a clean clone vitest
 * has no duration cache of its own, and a slow file starting last sets the suite's tail.
 */
const workers = Number(process.env['LOOP_RUNTIME_TEST_WORKERS'] ?? 4);

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'backends/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: workers,
    minWorkers: 1,
    setupFiles: ['test/setup-state-home.ts'],
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
