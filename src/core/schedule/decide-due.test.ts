import { describe, expect, it } from 'vitest';
import { backoffInterval, decideDue, formatDuration, type CadenceRange, type DecideDueOptions } from './decide-due.js';
import { historyHorizonMs, summarizeRuns, type PastTick } from './run-history.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 8, 15, 8, 0, 0);

const FAST: CadenceRange = { minIntervalMs: 5 * MINUTE, maxIntervalMs: 15 * MINUTE };
const SLOW: CadenceRange = { minIntervalMs: 2 * HOUR, maxIntervalMs: DAY };

/**
 * A scheduler driven by a fake clock: wakes `run --due` every `wakeMs`,
 * ticks the due loops with the outcome `outcomeOf` says, and records the
 * ticks as the run log would.
 */
class FakeScheduler {
  readonly ticks: PastTick[] = [];
  now = START;
  constructor(
    private readonly loops: Record<string, CadenceRange>,
    private readonly outcomeOf: (loop: string, at: number) => string,
    private readonly options: DecideDueOptions = { maxSlackMs: 0 },
  ) {}

  wake(): string[] {
    const summaries = summarizeRuns(this.ticks);
    const decisions = decideDue(
      Object.entries(this.loops).map(([id, cadence]) => {
        const summary = summaries.get(id);
        return { id, cadence, consecutiveNoops: summary?.consecutiveNoops ?? 0, ...(summary?.lastRun ? { lastRun: summary.lastRun } : {}) };
      }),
      this.now,
      this.options,
    );
    const due = decisions.filter((decision) => decision.due).map((decision) => decision.id);
    for (const loop of due) this.ticks.push({ loop, at: this.now, outcome: this.outcomeOf(loop, this.now), tickId: `${loop}-${this.ticks.length}` });
    return due;
  }

  /** Wakes every `wakeMs` until `untilMs` has passed; returns the tick times per loop. */
  run(durationMs: number, wakeMs: number): Record<string, number[]> {
    const end = this.now + durationMs;
    const times: Record<string, number[]> = {};
    for (; this.now < end; this.now += wakeMs) for (const loop of this.wake()) (times[loop] ??= []).push(this.now);
    return times;
  }
}

const gaps = (times: readonly number[]) => times.slice(1).map((time, index) => time - times[index]!);

describe('backoffInterval', () => {
  it('doubles per consecutive no-op and caps at the long end', () => {
    expect([0, 1, 2, 3, 10].map((noops) => backoffInterval(FAST, noops) / MINUTE)).toEqual([5, 10, 15, 15, 15]);
    expect([0, 1, 2, 3, 4, 5].map((noops) => backoffInterval(SLOW, noops) / HOUR)).toEqual([2, 4, 8, 16, 24, 24]);
    expect(backoffInterval({ minIntervalMs: HOUR, maxIntervalMs: HOUR }, 7)).toBe(HOUR);
  });
});

describe('decideDue', () => {
  it('runs a loop that never ran at once', () => {
    expect(decideDue([{ id: 'a', cadence: FAST, consecutiveNoops: 0 }], START)).toEqual([
      { id: 'a', due: true, nextAt: START, intervalMs: 5 * MINUTE, reason: 'never-run', detail: 'no previous tick recorded' },
    ]);
  });

  it('runs at the short end while every tick finds work', () => {
    const scheduler = new FakeScheduler({ ci: FAST }, () => 'fix-proposed');
    const times = scheduler.run(2 * HOUR, MINUTE);
    expect(times.ci).toHaveLength(24);
    expect(new Set(gaps(times.ci!))).toEqual(new Set([5 * MINUTE]));
  });

  it('backs off toward the long end while ticks are no-ops, and returns to the short end when work appears', () => {
    const workFrom = START + 3 * HOUR;
    const scheduler = new FakeScheduler({ ci: FAST }, (_loop, at) => (at === START || at >= workFrom ? 'fix-proposed' : 'no-op'));
    const times = scheduler.run(4 * HOUR, MINUTE).ci!;
    const before = gaps(times.filter((time) => time <= workFrom + 15 * MINUTE));
    expect(before.slice(0, 4).map((gap) => gap / MINUTE)).toEqual([5, 10, 15, 15]);
    expect(Math.max(...before)).toBe(15 * MINUTE);
    const after = gaps(times.filter((time) => time >= workFrom));
    expect(after.every((gap) => gap === 5 * MINUTE)).toBe(true);
  });

  it('coalesces a day of downtime into exactly one tick per loop', () => {
    const loops = { ci: FAST, triage: SLOW, hourly: { minIntervalMs: HOUR, maxIntervalMs: HOUR } };
    const scheduler = new FakeScheduler(loops, () => 'no-op');
    scheduler.run(6 * HOUR, MINUTE);
    scheduler.now += DAY; // the machine was off: no wakes for a day
    expect(scheduler.wake().sort()).toEqual(['ci', 'hourly', 'triage']);
    const overdue = decideDue([{ id: 'ci', cadence: FAST, lastRun: { at: scheduler.now - DAY, outcome: 'no-op' }, consecutiveNoops: 3 }], scheduler.now)[0]!;
    expect(overdue).toMatchObject({ due: true, reason: 'overdue' });
    expect(overdue.detail).toContain('coalesced into one tick');
    // The minutes after the catch-up: nothing more until the intervals pass again.
    scheduler.now += MINUTE;
    const next = scheduler.run(4 * MINUTE, MINUTE);
    expect(next).toEqual({});
  });

  it('with the default slack never ticks more often than 10% above the short end', () => {
    const scheduler = new FakeScheduler({ ci: FAST }, () => 'fix-proposed', {});
    const times = scheduler.run(2 * HOUR, 30_000).ci!;
    expect(Math.min(...gaps(times))).toBeGreaterThanOrEqual(4.5 * MINUTE);
    expect(Math.max(...gaps(times))).toBeLessThanOrEqual(5 * MINUTE);
  });

  it('absorbs a late scheduler with a bounded slack instead of skipping a slot', () => {
    const [early] = decideDue([{ id: 'daily', cadence: { minIntervalMs: DAY, maxIntervalMs: DAY }, lastRun: { at: START, outcome: 'no-op' }, consecutiveNoops: 1 }], START + DAY - 3 * MINUTE);
    expect(early).toMatchObject({ due: true, reason: 'due' });
    const [tooEarly] = decideDue([{ id: 'daily', cadence: { minIntervalMs: DAY, maxIntervalMs: DAY }, lastRun: { at: START, outcome: 'no-op' }, consecutiveNoops: 1 }], START + DAY - 20 * MINUTE);
    expect(tooEarly).toMatchObject({ due: false, reason: 'not-yet', nextAt: START + DAY });
  });

  it('waits out a last run dated in the future (another machine\'s clock)', () => {
    const [decision] = decideDue([{ id: 'a', cadence: FAST, lastRun: { at: START + HOUR, outcome: 'no-op' }, consecutiveNoops: 0 }], START);
    expect(decision).toMatchObject({ due: false, reason: 'clock-skew' });
  });
});

describe('summarizeRuns', () => {
  it('takes the newest tick and counts the no-op streak, each tick once', () => {
    const summaries = summarizeRuns([
      { loop: 'a', at: 1, outcome: 'fix-proposed', tickId: 't1' },
      { loop: 'a', at: 2, outcome: 'no-op', tickId: 't2' },
      { loop: 'a', at: 3, outcome: 'no-op', tickId: 't3' },
      { loop: 'a', at: 3, outcome: 'no-op', tickId: 't3' },
      { loop: 'b', at: 5, outcome: 'report-only' },
    ]);
    expect(summaries.get('a')).toEqual({ lastRun: { at: 3, outcome: 'no-op' }, consecutiveNoops: 2 });
    expect(summaries.get('b')).toEqual({ lastRun: { at: 5, outcome: 'report-only' }, consecutiveNoops: 0 });
  });

  it('bounds how far back history matters', () => {
    expect(historyHorizonMs(FAST)).toBe(4 * 15 * MINUTE);
    expect(historyHorizonMs({ minIntervalMs: HOUR, maxIntervalMs: HOUR })).toBe(2 * HOUR);
  });
});

describe('formatDuration', () => {
  it('is compact', () => {
    expect([30_000, 5 * MINUTE, 2 * HOUR + 30 * MINUTE, DAY].map(formatDuration)).toEqual(['30s', '5m', '2h30m', '1d']);
  });
});
