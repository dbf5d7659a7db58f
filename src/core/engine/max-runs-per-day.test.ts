import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { FixedClock } from '../../testing/fixed-clock.js';
import { MemoryStateWriter } from '../../adapters/state-writer/memory-state-writer.js';
import { LoopEngine } from './loop-engine.js';

const limited = buildPlan(dailyTriagePattern, { level: 'L1', maxRunsPerDay: { value: 2, source: 'loop-budget.md:9 (Daily Triage)' } });

describe("loop-budget.md's Max runs/day", () => {
  it('halts the third tick of a UTC day before any model call, and runs again after 00:00 UTC', async () => {
    const clock = new FixedClock('2026-05-01T22:00:00Z', 0);
    const ports = createMemoryPorts({ plan: limited, clock });
    const engine = new LoopEngine(limited, ports);
    expect((await engine.tick()).kind).not.toBe('halted');
    clock.advance(60_000);
    expect((await engine.tick()).kind).not.toBe('halted');
    const calls = ports.backend.calls.length;
    clock.advance(60_000);
    const third = await engine.tick();
    expect(third).toMatchObject({ kind: 'halted', reason: 'max-runs-per-day', message: expect.stringMatching(/ran 2 time\(s\) on 2026-05-01 \(UTC\), the limit is 2 \(loop-budget\.md:9 \(Daily Triage\)\)/) });
    expect(ports.backend.calls).toHaveLength(calls);
    // A halt writes a note and no run-log line: it does not count as a run itself.
    expect(await ports.state.runsOn('daily-triage', '2026-05-01')).toBe(2);
    clock.set('2026-05-02T00:00:01Z');
    expect((await engine.tick()).kind).not.toBe('halted');
  });

  it('the twin: without the limit the third tick runs', async () => {
    const plan = buildPlan(dailyTriagePattern, { level: 'L1' });
    const ports = createMemoryPorts({ plan, clock: new FixedClock('2026-05-01T22:00:00Z', 60_000) });
    const engine = new LoopEngine(plan, ports);
    const results = await engine.ticks(3);
    expect(results.map((result) => result.kind)).not.toContain('halted');
    expect(ports.backend.calls).toHaveLength(3);
  });

  it('counts runs other processes and agents logged today, but not decisions and precondition refusals', async () => {
    const line = (kind: string | null, at = '2026-05-01T08:00:00Z') => `${JSON.stringify({ run_id: at, pattern: 'daily-triage', duration_s: 0, items_found: 0, actions_taken: 0, escalations: 0, tokens_estimate: 0, outcome: 'no-op', ...(kind ? { kind } : {}) })}\n`;
    const state = new MemoryStateWriter({ priorRuns: async () => 0 });
    const seeded = new MemoryStateWriter({ initialRunLog: `# Loop Run Log\n\n<!-- Loop appends below this line -->\n${line(null)}${line('human-approved')}${line('precondition-failed')}${line('noop', '2026-04-30T23:59:59Z')}` });
    expect(await state.runsOn('daily-triage', '2026-05-01')).toBe(0);
    expect(await seeded.runsOn('daily-triage', '2026-05-01')).toBe(1);
  });
});
