import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { MemoryKillSwitch } from '../../adapters/kill-switch/memory-kill-switch.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { FixedClock } from '../../testing/fixed-clock.js';
import { LoopEngine } from './loop-engine.js';
import { ZERO_USAGE, type AgentBackend, type AgentResult, type AgentRequest } from '../ports/index.js';

/** A backend that is logged out until `loggedIn` is set; counts its calls. */
function flakyAuthBackend() {
  const state = { calls: 0, loggedIn: false };
  const backend: AgentBackend = {
    specificationVersion: 'agent-backend-v2',
    name: 'scripted',
    async run(request: AgentRequest): Promise<AgentResult> {
      state.calls += 1;
      if (!state.loggedIn) return { ok: false, reason: 'auth', message: 'not logged in', retryable: false, usage: { ...ZERO_USAGE } };
      if (request.role !== 'triage') throw new Error('only triage is scripted');
      return { ok: true, role: 'triage', output: { decision: 'noop', summary: 'nothing to do', findings: [], items: [] }, usage: { ...ZERO_USAGE } };
    },
  };
  return { backend, state };
}

function engineWith(backend: AgentBackend, killSwitch: MemoryKillSwitch, cap?: number) {
  const clock = new FixedClock('2026-11-23T08:00:00Z', 1000);
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: [], ...(cap ? { dailyTokenCap: cap } : {}) } });
  const ports = createMemoryPorts({ plan, clock, commands: {}, ...(cap ? { seedSpend: { '2026-11-23': { 'daily-triage': cap } } } : {}) });
  return new LoopEngine(plan, { ...ports, backend, killSwitch });
}

describe('a halt that needs a human persists until resumed', () => {
  it('backend-stopped is kept by the kill switch; the next engine (a new process) stops before any backend call', async () => {
    const { backend, state } = flakyAuthBackend();
    const killSwitch = new MemoryKillSwitch();
    const first = await engineWith(backend, killSwitch).tick();
    expect(first).toMatchObject({ kind: 'halted', reason: 'backend-stopped', message: 'not logged in' });
    expect(killSwitch.halted).toMatchObject({ patternId: 'daily-triage', reason: 'backend-stopped', message: 'not logged in', tickId: first.tickId });

    state.loggedIn = true; // the backend works again, but no human has said so
    const second = await engineWith(backend, killSwitch).tick();
    expect(second).toMatchObject({ kind: 'halted', reason: 'awaiting-resume', halt: { reason: 'backend-stopped', tickId: first.tickId } });
    expect(second.kind === 'halted' && second.message).toContain('loop-runtime resume daily-triage');
    expect(state.calls).toBe(1);
    // A halt read back is not persisted again.
    expect(killSwitch.halted?.tickId).toBe(first.tickId);

    expect(killSwitch.clearHalt()?.tickId).toBe(first.tickId);
    const third = await engineWith(backend, killSwitch).tick();
    expect(third).toMatchObject({ kind: 'noop' });
    expect(state.calls).toBe(2);
  });

  it('a daily-cap halt is not persisted: it clears itself the next UTC day', async () => {
    const { backend, state } = flakyAuthBackend();
    const killSwitch = new MemoryKillSwitch();
    const result = await engineWith(backend, killSwitch, 10_000).tick();
    expect(result).toMatchObject({ kind: 'halted', reason: 'budget-exhausted' });
    expect(killSwitch.halted).toBeNull();
    expect(state.calls).toBe(0);
  });

  it('a kill switch without the halt capability still halts the tick (nothing persisted)', async () => {
    const { backend } = flakyAuthBackend();
    const plain = new MemoryKillSwitch();
    const withoutHalt = { specificationVersion: plain.specificationVersion, check: () => plain.check() };
    const clock = new FixedClock('2026-11-23T08:00:00Z', 1000);
    const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: [] } });
    const result = await new LoopEngine(plan, { ...createMemoryPorts({ plan, clock, commands: {} }), backend, killSwitch: withoutHalt }).tick();
    expect(result).toMatchObject({ kind: 'halted', reason: 'backend-stopped' });
  });
});
