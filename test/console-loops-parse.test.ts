/**
 * The console's Loops table reads each run log once per request, however many loops share it. Every loop's kill
 * switch reads the run log for a halt that needs a human; 50 loops sharing one 1,000-line run log parsed it 50
 * times per `/api/loops` (the bench's 38 ms median had become 127 ms). Counted, not timed: the run-log parser is
 * wrapped and its calls counted for one request over 20 loops, and a halted loop is still reported as halted.
 */
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FileKillSwitch } from '../src/adapters/kill-switch/kill-switch.js';
import * as runLog from '../src/core/state/run-log.js';
import { openRuntime } from '../src/composition/runtime.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
// @ts-expect-error -- a bench script in plain JavaScript, without declarations
import { scaffold } from '../scripts/bench-serve.js';

vi.mock('../src/core/state/run-log.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/core/state/run-log.js')>();
  return { ...original, parseRunLog: vi.fn(original.parseRunLog) };
});

const repos: string[] = [];
afterAll(() => Promise.all(repos.map((repo) => rm(repo, { recursive: true, force: true }))));

describe('console: the Loops table parses each run log once', () => {
  it('20 loops sharing a 1,000-line run log: a handful of parses, not one per loop; a halt still shows', async () => {
    const repo = (scaffold as (loops: number) => string)(20);
    repos.push(repo);
    const now = Date.now();
    await new FileKillSwitch({ root: repo, patternId: 'loop-07', runLog: 'loop-run-log.md' }).halt({ patternId: 'loop-07', reason: 'budget-overrun', message: 'spent past its reservation', tickId: 'tick-halted', startedAt: now - 1000, at: now, tokens: 900 });
    const opened = await openRuntime({ cwd: repo, env: {}, clock: new FixedClock(now) });
    if (!opened.ok) throw new Error(JSON.stringify(opened.issues));
    const parse = vi.mocked(runLog.parseRunLog);
    parse.mockClear();
    const loops = await opened.runtime.loops();
    expect(loops).toHaveLength(20);
    // The table's own read, outcome metrics' read, the kill switches' shared read (and the due decision's).
    expect(parse.mock.calls.length).toBeLessThanOrEqual(4);
    expect(loops.filter((loop) => loop.paused).map((loop) => [loop.id, loop.pausedBy.map((source) => source.kind)])).toEqual([['loop-07', ['halt']]]);
  });
});
