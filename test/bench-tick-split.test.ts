/**
 * `npm run bench`'s tick split (scripts/bench-tick-split.js) over the built library, with a 50-file "big"
 * repository: the parts add up to the tick's wall time, the first tick runs the verification command twice (base
 * and change) and the second, on the unchanged base, once (the baseline cache); each tick's git processes are
 * counted by subcommand. Numbers are the bench's business.
 */
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
// @ts-expect-error -- a plain-JavaScript script without declarations
import { benchTickSplit, formatTickSplit } from '../scripts/bench-tick-split.js';

interface Tick {
  wallMs: number;
  model: number;
  test: number;
  git: number;
  sandbox: number;
  other: number;
  cpuMs: number;
  commandRuns: number;
  gitProcesses: number;
  gitCommands: Array<[string, [number, number]]>;
}

describe.runIf((await detectSandbox()).kind === 'bwrap')('the tick split', () => {
  it('splits a first and a second tick into parts that add up, the second reusing the base results', async () => {
    const rows = (await benchTickSplit({ bigFiles: 50, checkMs: 0, referenceRunCount: 1, repeat: 2 })) as Array<{ name: string; verifyMs: number; first: Tick; second: Tick; secondRange: [number, number]; ratio: number }>;
    expect(rows.map((row) => row.name)).toEqual(['small', '50 files']);
    for (const row of rows) {
      expect(row.first.commandRuns).toBe(2);
      expect(row.second.commandRuns).toBe(1);
      // The second tick is the median of the repeated ones on the unchanged base.
      expect(row.secondRange[0]).toBeLessThanOrEqual(row.second.wallMs);
      expect(row.second.wallMs).toBeLessThanOrEqual(row.secondRange[1]);
      for (const tick of [row.first, row.second]) {
        expect(tick.model + tick.test + tick.git + tick.sandbox + tick.other).toBeCloseTo(tick.wallMs, 3);
        expect(tick.git).toBeGreaterThan(0);
        expect(tick.test + tick.sandbox).toBeGreaterThan(0);
        expect(tick.other).toBeGreaterThanOrEqual(-1);
        expect(tick.cpuMs).toBeGreaterThanOrEqual(0);
        // Every git process the tick started is counted under its subcommand (the passes over the index show by name).
        expect(tick.gitProcesses).toBeGreaterThan(0);
        expect(tick.gitCommands.reduce((sum, [, [count]]) => sum + count, 0)).toBe(tick.gitProcesses);
        expect(tick.gitCommands.map(([command]) => command)).toEqual(expect.arrayContaining(['status', 'commit-tree']));
      }
    }
    expect((formatTickSplit(rows) as string[]).join('\n')).toMatch(/second tick \/ one verification run: \d+\.\d\d×/);
  });
});
