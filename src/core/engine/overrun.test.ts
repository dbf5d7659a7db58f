import { describe, expect, it } from 'vitest';
import { MockBackend } from '../../../backends/mock/index.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import type { AgentBackend, AgentRole } from '../ports/index.js';
import { LoopEngine } from './loop-engine.js';

const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'] } });

/** The mock backend, except that in one role it spends one token more than its reservation. */
function overspendingIn(role: AgentRole): AgentBackend & { inner: MockBackend } {
  const inner = new MockBackend();
  return {
    specificationVersion: 'agent-backend-v2',
    name: `overspends-in-${role}`,
    inner,
    async run(request) {
      const result = await inner.run(request);
      if (request.role !== role) return result;
      return { ...result, usage: { ...result.usage, inputTokens: request.maxTokens, outputTokens: 1 } };
    },
  };
}

describe('a backend that spends more than its reservation halts the loop in every phase', () => {
  it.each([
    ['triage', 10_000, ['triage']],
    ['implement', 40_000, ['triage', 'implement']],
    ['check', 15_000, ['triage', 'implement', 'check']],
  ] as const)('in %s: halted (budget-overrun), spend recorded, nothing committed', async (role, reserved, phases) => {
    const ports = createMemoryPorts({ plan, commands: {} });
    const backend = overspendingIn(role);
    const engine = new LoopEngine(plan, { ...ports, backend });
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'halted', reason: 'budget-overrun' });
    if (result.kind !== 'halted') return;
    const spent = (reserved + 1).toLocaleString('en-US');
    expect(result.message).toContain(`The ${role} phase spent ${spent} tokens against a reservation of ${reserved.toLocaleString('en-US')}`);
    expect(ports.budgetLedger.entries.map((entry) => entry.phase)).toEqual(phases);
    expect(ports.budgetLedger.entries.at(-1)?.tokens).toBe(reserved + 1);
    // A workspace opened for the act is discarded, never committed or kept.
    expect(ports.workspace.inspect().map((attempt) => attempt.status)).toEqual(role === 'triage' ? [] : ['rejected']);
    // The halt is written as a note, and the loop stops: `ticks()` runs no second tick.
    expect(ports.state.notes.map((note) => note.line)).toEqual([`Loop halted: ${result.message}`]);
    expect(await engine.ticks(3)).toHaveLength(1);
  });
});
