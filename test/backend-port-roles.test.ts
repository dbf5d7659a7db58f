/**
 * The AgentBackend port is role-discriminated: an answer tagged with another
 * role than the request's is never read as the asked role's output. The
 * engine turns it into an `invalid-output` failure and still settles its spend.
 */
import { describe, expect, it } from 'vitest';
import { MockBackend } from '../backends/mock/index.js';
import { LoopEngine } from '../src/core/engine/loop-engine.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import {
  resultForRole,
  type AgentBackend,
  type AgentRequest,
  type AgentResult,
  type AgentRole,

  type Usage,
} from '../src/core/ports/index.js';
import { createMemoryPorts } from '../src/testing/create-memory-ports.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { dailyTriagePattern } from './fixtures/patterns.js';

const usage = (tokens: number): Usage => ({ inputTokens: tokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });

/** The mock, except that one role is answered with another role's (well-formed) output. */
class WrongRoleBackend implements AgentBackend {
  readonly specificationVersion = 'agent-backend-v2' as const;
  readonly name = 'wrong-role';
  readonly seen: AgentRequest[] = [];
  private readonly inner = new MockBackend({ scenarios: ['act-accept'] });
  constructor(private readonly wrongOn: AgentRole) {}
  async run(request: AgentRequest): Promise<AgentResult> {
    this.seen.push(request);
    if (request.role !== this.wrongOn) return this.inner.run(request);
    // An approving verdict and an "act" triage are exactly what a confused backend must not smuggle into another role.
    if (request.role === 'check') return { ok: true, role: 'triage', output: { decision: 'act', summary: 'x', findings: [], items: [] }, usage: usage(777) };
    return { ok: true, role: 'check', output: { verdict: 'APPROVE', reasons: ['looks fine'] }, usage: usage(777) };
  }
}

function engineWith(backend: AgentBackend) {
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { maxIterations: 4, verify: ['npm test'] } });
  const ports = createMemoryPorts({ plan, clock: new FixedClock('2026-11-21T08:00:00Z', 1000), commands: {} });
  const engine = new LoopEngine(plan, { ...ports, backend });
  return { engine, plan, budget: ports.budget };
}

describe('resultForRole', () => {
  it('keeps an answer for the asked role and passes failures through', () => {
    const answer: AgentResult = { ok: true, role: 'check', output: { verdict: 'REJECT', reasons: [] }, usage: usage(5) };
    expect(resultForRole('check', answer)).toBe(answer);
    const failure: AgentResult = { ok: false, reason: 'timeout', message: 'slow', retryable: true, usage: usage(9) };
    expect(resultForRole('implement', failure)).toBe(failure);
  });

  it('turns an answer for another role into invalid-output, keeping usage and transcript', () => {
    const wrong: AgentResult = { ok: true, role: 'check', output: { verdict: 'APPROVE', reasons: [] }, usage: usage(42), transcript: 't' };
    const narrowed = resultForRole('triage', wrong);
    expect(narrowed).toMatchObject({
      ok: false,
      reason: 'invalid-output',
      retryable: false,
      usage: usage(42),
      transcript: 't',
      detail: { expectedRole: 'triage', answeredRole: 'check' },
    });
    expect(narrowed.ok === false && narrowed.message).toMatch(/answered the triage call with a check result\. To fix:/);
  });
});

describe('the engine and a backend that answers the wrong role', () => {
  it('fails the tick at triage when triage is answered with an approving verdict, and settles the spend', async () => {
    const backend = new WrongRoleBackend('triage');
    const { engine, plan, budget } = engineWith(backend);
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'failed', phase: 'triage', retryable: false });
    expect(result.kind === 'failed' && result.message).toMatch(/answered the triage call with a check result/);
    expect(result.tokens).toBe(777);
    expect((await budget.status(plan.pattern.id, Date.parse('2026-11-21T08:00:00Z'))).spent).toBe(777);
    expect(backend.seen.map((request) => request.role)).toEqual(['triage']);
  });

  it('never proposes a change whose implementer answered as a checker', async () => {
    const backend = new WrongRoleBackend('implement');
    const { engine } = engineWith(backend);
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'failed', phase: 'implement' });
    expect(result.steps.find((step) => step.phase === 'implement')?.note).toMatch(/^implementer failed: The backend answered the implement call with a check result/);
    expect(backend.seen.map((request) => request.role)).toEqual(['triage', 'implement']);
  });

  it('does not read a triage answer to the checker as a verdict: the change is rejected, not approved', async () => {
    const backend = new WrongRoleBackend('check');
    const { engine } = engineWith(backend);
    const result = await engine.tick();
    expect(result.kind).not.toBe('proposed');
    expect(result.steps.find((step) => step.phase === 'check')?.note).toMatch(/^checker failed: The backend answered the check call with a triage result/);
    expect(backend.seen.map((request) => request.role)).toEqual(['triage', 'implement', 'check']);
  });

  it('passes the plan\'s maxIterations to every call as maxTurns', async () => {
    const backend = new WrongRoleBackend('check');
    await engineWith(backend).engine.tick();
    expect(backend.seen.map((request) => request.maxTurns)).toEqual([4, 4, 4]);
  });
});

describe('the port\'s types', () => {
  it('reject a role answered with another role\'s output, and a check request without its evidence (compile time)', () => {
    const typeChecks = (request: AgentRequest): AgentResult[] => {
      const results: AgentResult[] = [
        // @ts-expect-error a check answer must carry a CheckOutput
        { ok: true, role: 'check', output: { decision: 'noop', summary: '', findings: [], items: [] }, usage: usage(0) },
        { ok: true, role: 'triage', output: { decision: 'noop', summary: '', findings: [], items: [] }, usage: usage(0) },
      ];
      if (request.role === 'check') {
        // @ts-expect-error a check request always has evidence and changes
        const incomplete: AgentRequest = { ...request, evidence: undefined };
        results.push({ ok: false, reason: 'error', message: String(incomplete.role), retryable: false, usage: usage(0) });
      }
      return results;
    };
    expect(typeof typeChecks).toBe('function');
  });
});
