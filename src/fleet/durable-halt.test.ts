import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../test/fixtures/patterns.js';
import { MemoryKillSwitch } from '../adapters/kill-switch/memory-kill-switch.js';
import { LoopEngine } from '../core/engine/loop-engine.js';
import { buildPlan } from '../core/plan/build-plan.js';
import { ZERO_USAGE, type AgentBackend } from '../core/ports/index.js';
import { createMemoryPorts } from '../testing/create-memory-ports.js';
import { FixedClock } from '../testing/fixed-clock.js';
import { durablePorts, type StepRunner } from './durable-ports.js';

const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: [] } });
const runStep: StepRunner = async (_name, body) => body();

describe('a fleet tick (durable ports) and a halt that needs a human', () => {
  it('persists the halt through the wrapped kill switch; the next workflow stops before any backend call', async () => {
    let calls = 0;
    const backend: AgentBackend = {
      specificationVersion: 'agent-backend-v2',
      name: 'scripted',
      async run() {
        calls += 1;
        return { ok: false, reason: 'quota-exhausted', message: 'quota used up', retryable: false, usage: { ...ZERO_USAGE } };
      },
    };
    const killSwitch = new MemoryKillSwitch();
    const tick = async (workflowId: string) => {
      const clock = new FixedClock('2026-11-23T08:00:00Z', 1000);
      const memory = createMemoryPorts({ plan, clock, commands: {} });
      const ports = durablePorts({ ...memory, backend, killSwitch }, runStep, { workflowId, startedAt: clock.now(), clock, budgetLedger: memory.budgetLedger });
      return new LoopEngine(plan, ports).tick();
    };
    expect(await tick('wf-1')).toMatchObject({ kind: 'halted', reason: 'backend-stopped' });
    expect(await tick('wf-2')).toMatchObject({ kind: 'halted', reason: 'awaiting-resume', halt: { reason: 'backend-stopped', message: 'quota used up' } });
    expect(calls).toBe(1);
  });
});
