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
 * has no duration cache of its own, and a slow file starting last sets the suite's tail. Each pool sorts its own
 * files, so the long integration files still start first in the forks.
 *
 * Two projects. "integration" (test/**) runs as above, a fresh fork per file. "unit" (the tests beside the
 * source, src/** and backends/**) runs without per-file isolation in two worker threads beside the forks: a
 * fresh fork per file re-imported the module graph 140 times (70 s CPU; ~25 s unisolated). It is a pool of its
 * own because a forks pool isolates all its projects or none (vitest takes the pool's `isolate` from the root
 * config). Safe because these files leave nothing behind: no fake timers, mocks, process.env or cwd changes,
 * process.exit or signal handlers in the test process (a file that needs one goes to test/); each worker thread
 * has its own copy of process.env, and setupFiles still run per file (a fresh XDG_STATE_HOME each). With one
 * worker the projects run one after the other (groupOrder), so 1 still means serial. The threads all start at
 * once (min = max): no idle-worker removal mid-run (tinypool removes idle workers without catching a failed teardown; the
 * likely source of the unhandled 'Terminating worker thread' a non-isolated forks run ended with).
 * Check a change in a shuffled file order: `LOOP_RUNTIME_TEST_SHUFFLE=<seed> npx vitest run --project unit`.
 */
const workers = Number(process.env['LOOP_RUNTIME_TEST_WORKERS'] ?? 4);
const unitThreads = Math.min(workers, 2);
const unitFiles = ['src/**/*.test.ts', 'backends/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: workers,
    minWorkers: 1,
    poolOptions: { threads: { isolate: false, maxThreads: unitThreads, minThreads: unitThreads } },
    setupFiles: ['test/setup-state-home.ts'],
    sequence: { sequencer: SlowestFirstSequencer },
    projects: [
      { extends: true, test: { name: 'unit', include: unitFiles, pool: 'threads', sequence: { groupOrder: workers === 1 ? 1 : 0 } } },
      // globalSetup: the suite run's directory for the warm Go build cache (test/go-build-cache-seed.ts).
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], globalSetup: ['test/go-build-cache-seed.setup.ts'] } },
    ],
  },
});
