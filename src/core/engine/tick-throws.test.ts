import { describe, expect, it } from 'vitest';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { LoopEngine } from './loop-engine.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';

describe('a tick that throws', () => {
  it('is recorded as a failed attempt and tick, rethrown, and opens the circuit breaker like returned failures', async () => {
    const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'] } });
    const ports = createMemoryPorts({ plan, commands: {} });
    const workspace = ports.workspace;
    workspace.prepare = async () => {
      throw new Error('disk full while preparing the worktree');
    };
    const engine = new LoopEngine(plan, ports);
    for (let tick = 1; tick <= 3; tick++) await expect(engine.tick()).rejects.toThrow('disk full');
    const history = await ports.attempts.history();
    expect(history).toHaveLength(3);
    expect(history.every((attempt) => attempt.outcome === 'failure' && attempt.error?.includes('disk full'))).toBe(true);
    expect(ports.state.runLogText).toContain('"outcome":"failed"');
    const fourth = await engine.tick(); // the same error 3× in a row
    expect(fourth).toMatchObject({ kind: 'halted', reason: 'circuit-open' });
  });
});
