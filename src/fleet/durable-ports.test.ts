import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../test/fixtures/patterns.js';
import { LoopEngine } from '../core/engine/loop-engine.js';
import type { TickResult } from '../core/engine/tick-result.js';
import { buildPlan } from '../core/plan/build-plan.js';
import type { AgentBackend } from '../core/ports/index.js';
import { createMemoryPorts } from '../testing/create-memory-ports.js';
import { FixedClock } from '../testing/fixed-clock.js';
import { durablePorts, workflowIds, type StepRunner } from './durable-ports.js';

class Killed extends Error {}

/**
 * A step journal like DBOS's: a step whose output is recorded returns it
 * without running again. A body throwing `Killed` is the process dying:
 * nothing of it, and no later step, is recorded.
 */
function journal() {
  const recorded: Array<{ name: string; output: unknown }> = [];
  const names: string[] = [];
  const runner = (): StepRunner => {
    let index = 0;
    let dead = false;
    return async <T>(name: string, body: () => Promise<T>): Promise<T> => {
      if (dead) throw new Killed('the process is gone');
      const at = index++;
      const done = recorded[at];
      if (done) {
        // DBOS refuses a replay that takes another path; so does this journal.
        expect(done.name).toBe(name);
        return done.output as T;
      }
      names.push(name);
      const output = JSON.parse(JSON.stringify(await body().catch((error: unknown) => {
        if (error instanceof Killed) dead = true;
        throw error;
      }))) as T;
      recorded[at] = { name, output };
      return output;
    };
  };
  return { recorded, names, runner };
}

const withoutLocalTimes = (result: TickResult): unknown => JSON.parse(JSON.stringify(result, (key, value: unknown) => (key === 'evidence' && Array.isArray(value) ? value.map((entry: object) => ({ ...entry, finishedAt: 0 })) : value)));

const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'] } });

function wired(start: string, backend?: AgentBackend) {
  const clock = new FixedClock(start, 1000);
  const memory = createMemoryPorts({ plan, clock, backend: { scenarios: ['act-accept'] }, commands: {} });
  const ports = { ...memory, ...(backend ? { backend } : {}) };
  return { memory, ports, clock };
}

describe('durablePorts', () => {
  it('replays a finished tick from its journal alone: the same result, no port called again', async () => {
    const steps = journal();
    const first = wired('2026-11-23T08:00:00Z');
    const options = { workflowId: 'wf-1', startedAt: first.clock.now(), clock: first.clock, budgetLedger: first.memory.budgetLedger };
    const result = await new LoopEngine(plan, durablePorts(first.ports, steps.runner(), options)).tick();
    expect(result.kind).toBe('proposed');
    expect(steps.names.filter((name) => name === 'backend.run')).toHaveLength(3);
    expect(steps.names).toEqual(expect.arrayContaining(['killSwitch.check', 'budget.open', 'budget.settle', 'attempts.history', 'state.recordTick']));

    const refusing: AgentBackend = { specificationVersion: 'agent-backend-v2', name: 'must-not-run', run: () => Promise.reject(new Error('called again')) };
    const again = wired('2026-11-23T09:00:00Z', refusing);
    const replayed = await new LoopEngine(plan, durablePorts(again.ports, steps.runner(), { ...options, clock: again.clock, budgetLedger: again.memory.budgetLedger })).tick();
    // Verification commands are local (they run in the resuming worker's worktree): only their times differ.
    expect(withoutLocalTimes(replayed)).toEqual(withoutLocalTimes(result));
    expect(again.memory.budgetLedger).toEqual(wired('2026-11-23T09:00:00Z').memory.budgetLedger);
  });

  it('resumes after a crash in the implementer: triage is not called again, the implementer is', async () => {
    const steps = journal();
    const crashing = wired('2026-11-23T08:00:00Z');
    const inner = crashing.memory.backend;
    const dying: AgentBackend = { specificationVersion: 'agent-backend-v2', name: 'dying', run: (request) => (request.role === 'implement' ? Promise.reject(new Killed('kill -9')) : inner.run(request)) };
    const options = { workflowId: 'wf-2', startedAt: crashing.clock.now(), clock: crashing.clock, budgetLedger: crashing.memory.budgetLedger };
    await new LoopEngine(plan, durablePorts({ ...crashing.ports, backend: dying }, steps.runner(), options)).tick().catch(() => undefined);
    expect(steps.recorded.map((step) => step.name).filter((name) => name === 'backend.run')).toHaveLength(1);

    const resumed = wired('2026-11-23T08:05:00Z');
    const result = await new LoopEngine(plan, durablePorts(resumed.ports, steps.runner(), { ...options, clock: resumed.clock, budgetLedger: crashing.memory.budgetLedger })).tick();
    expect(resumed.memory.backend.calls.map((call) => call.role)).toEqual(['implement', 'check']);
    expect(inner.calls.map((call) => call.role)).toEqual(['triage']);
    expect(result.kind).toBe('proposed');
  });

  it('derives tick ids from the workflow id, the same on every replay', () => {
    const ids = workflowIds('tick:acme/demo:daily-triage:2026-11-23T08:00Z');
    expect([ids.next('tick'), ids.next('attempt'), ids.next('attempt')]).toEqual([
      'tick-tick:acme/demo:daily-triage:2026-11-23T08:00Z',
      'attempt-tick:acme/demo:daily-triage:2026-11-23T08:00Z',
      'attempt-tick:acme/demo:daily-triage:2026-11-23T08:00Z-2',
    ]);
  });
});

describe('durablePorts after the implementer completed on a worker that then died', () => {
  it('restores the implementer edits on the resuming worker instead of calling it again', async () => {
    const steps = journal();
    const crashing = wired('2026-11-23T08:00:00Z');
    const inner = crashing.memory.backend;
    const dying: AgentBackend = { specificationVersion: 'agent-backend-v2', name: 'dying', run: (request) => (request.role === 'check' ? Promise.reject(new Killed('kill -9')) : inner.run(request)) };
    const options = { workflowId: 'wf-3', startedAt: crashing.clock.now(), clock: crashing.clock, budgetLedger: crashing.memory.budgetLedger };
    await new LoopEngine(plan, durablePorts({ ...crashing.ports, backend: dying }, steps.runner(), options)).tick().catch(() => undefined);

    const resumed = wired('2026-11-23T08:05:00Z');
    const result = await new LoopEngine(plan, durablePorts(resumed.ports, steps.runner(), { ...options, clock: resumed.clock, budgetLedger: crashing.memory.budgetLedger })).tick();
    expect(inner.calls.map((call) => call.role)).toEqual(['triage', 'implement']);
    expect(resumed.memory.backend.calls.map((call) => call.role)).toEqual(['check']);
    expect(result).toMatchObject({ kind: 'proposed', changes: [{ path: 'src/example.ts', status: 'modified' }] });
  });
});
