import { describe, expect, it } from 'vitest';
import type { Pattern } from '../config/schemas.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import type { AgentRequest, TickLease } from '../ports/index.js';
import { LoopEngine } from './loop-engine.js';

const pattern: Pattern = {
  id: 'issue-pr-repair',
  name: 'Issue-to-PR Repair',
  file: 'issue-pr-repair.md',
  goal: 'Fix small bugs',
  cadence: '6h',
  risk: 'medium',
  tools: ['claude-code'],
  skills: [],
  state: 'STATE.md',
  phases: ['fix'],
  human_gates: [],
  week_one_mode: 'L2',
  cost: { tokens_noop: 5000, tokens_report: 50000, tokens_action: 200000, suggested_daily_cap: 1_000_000, early_exit_required: false },
};

/** A lease another holder takes over when the test says so (as a stalled process's lease is). */
class TakeableLease implements TickLease {
  readonly specificationVersion = 'tick-lease-v1' as const;
  readonly fence = 3;
  takenOver = false;
  checks = 0;
  async stillHeld(): Promise<boolean> {
    this.checks += 1;
    return !this.takenOver;
  }
}

/** A tick whose lease is taken over while its `role` call runs. */
function tickLosingLeaseDuring(role: AgentRequest['role'] | null) {
  const plan = buildPlan(pattern, { level: 'L2', overrides: { verify: ['npm test'] } });
  const ports = createMemoryPorts({ plan, backend: { itemKey: 'issue#7' }, commands: {} });
  const lease = new TakeableLease();
  const run = ports.backend.run.bind(ports.backend);
  ports.backend.run = async (request) => {
    const result = await run(request);
    if (request.role === role) lease.takenOver = true;
    return result;
  };
  return { engine: new LoopEngine(plan, { ...ports, lease }), ports, lease };
}

describe('a tick under a fenced lease', () => {
  it('stops before its next shared write once the lease is taken over: lease-lost, no commit, no attempt, no record', async () => {
    const { engine, ports, lease } = tickLosingLeaseDuring('implement');
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'halted', reason: 'lease-lost' });
    expect(result.kind === 'halted' && result.message).toContain('fence 3');
    // The implementer ran; nothing after it: no check call, no commit, no attempt, no state record or note.
    expect(ports.backend.calls.map((call) => call.role)).toEqual(['triage', 'implement']);
    expect(ports.workspace.inspect().flatMap((entry) => (entry.commit ? [entry.commit] : []))).toEqual([]);
    expect(ports.attempts.records).toEqual([]);
    expect(ports.state.records).toEqual([]);
    // What the implementer spent is settled (it happened); no reservation was opened after the loss.
    expect(ports.budgetLedger.entries.map((entry) => entry.phase)).toEqual(['triage', 'implement']);
    expect(lease.checks).toBeGreaterThan(0);
  });

  it('stops before the implementer when the lease is lost during triage', async () => {
    const { engine, ports } = tickLosingLeaseDuring('triage');
    expect(await engine.tick()).toMatchObject({ kind: 'halted', reason: 'lease-lost' });
    expect(ports.backend.calls.map((call) => call.role)).toEqual(['triage']);
    expect(ports.budgetLedger.entries.map((entry) => entry.phase)).toEqual(['triage']);
  });

  it('the allowed twin: a lease kept to the end lets the tick propose and record as always', async () => {
    const { engine, ports, lease } = tickLosingLeaseDuring(null);
    const result = await engine.tick();
    expect(result.kind).toBe('proposed');
    expect(ports.state.records.map((record) => record.kind)).toEqual(['proposed']);
    expect(ports.attempts.records.map((record) => record.outcome)).toEqual(['success']);
    // Every write asked: reservations, commit, attempt, record at least.
    expect(lease.checks).toBeGreaterThanOrEqual(4);
  });

  it('refuses a lease port of another specification version', () => {
    const plan = buildPlan(pattern, { level: 'L2', overrides: { verify: ['npm test'] } });
    const ports = createMemoryPorts({ plan, commands: {} });
    const lease = { specificationVersion: 'tick-lease-v0', fence: 1, stillHeld: async () => true } as unknown as TickLease;
    expect(() => new LoopEngine(plan, { ...ports, lease })).toThrow(/lease port implements "tick-lease-v0"/);
  });
});
