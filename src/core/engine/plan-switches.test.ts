import { describe, expect, it } from 'vitest';
import { MockBackend } from '../../../backends/mock/index.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import type { ExecutionPlan } from '../plan/execution-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import type { AgentBackend } from '../ports/index.js';
import { LoopEngine } from './loop-engine.js';

const base = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'], maxIterations: 4 } });
const withPhase = (phase: 'workspace' | 'commit' | 'verify', enabled: boolean): ExecutionPlan => ({
  ...base,
  phases: { ...base.phases, [phase]: { ...base.phases[phase], enabled } },
});

function run(plan: ExecutionPlan, backend?: AgentBackend) {
  const ports = createMemoryPorts({ plan, commands: {} });
  return { ports, engine: new LoopEngine(plan, backend ? { ...ports, backend } : ports) };
}

describe('every plan field the engine reads is enforced', () => {
  it('passes attempts.maxIterations to every backend call as its turn limit (maxTurns)', async () => {
    const inner = new MockBackend();
    const turns: unknown[] = [];
    const backend: AgentBackend = {
      specificationVersion: 'agent-backend-v2',
      name: 'spy',
      run: (request) => {
        turns.push([request.role, Reflect.get(request, 'maxTurns')]);
        return inner.run(request);
      },
    };
    expect((await run(base, backend).engine.tick()).kind).toBe('proposed');
    expect(turns).toEqual([['triage', 4], ['implement', 4], ['check', 4]]);
  });

  it('does not act when the workspace phase is off: no workspace, no implementer, a report', async () => {
    const { engine, ports } = run(withPhase('workspace', false));
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'report', degraded: true, degradedReason: 'the plan has the workspace phase off at L2' });
    expect(ports.workspace.inspect()).toEqual([]);
    expect(ports.backend.calls.map((call) => call.role)).toEqual(['triage']);
  });

  it('never commits when the commit phase is off: the verified change is kept for a human', async () => {
    const { engine, ports } = run(withPhase('commit', false));
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'escalated', reason: expect.stringContaining('commit phase off') });
    expect(ports.workspace.inspect().map((attempt) => [attempt.status, attempt.commit])).toEqual([['escalated', undefined]]);
  });

  it('never approves when the verify phase is off: no command runs, the change is escalated', async () => {
    const { engine, ports } = run(withPhase('verify', false));
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'escalated', verification: { verdict: 'ESCALATE_HUMAN' } });
    expect(ports.commands?.runs).toEqual([]);
  });

  it('has no switch the engine does not read (report, merge.onlyAllowlisted, earlyExit.required are gone)', () => {
    expect(Object.keys(base.phases)).toEqual(['triage', 'workspace', 'implement', 'verify', 'commit', 'merge']);
    expect(base.phases.merge).toEqual({ enabled: false });
    expect(Object.keys(base.earlyExit)).toEqual(['probes']);
  });
});
