import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import type { AttemptRecord } from '../ports/index.js';
import { circuitState, failedAttemptsOn } from './circuit-breaker.js';
import { LoopEngine } from './loop-engine.js';

const limits = { maxPerItem: 3, sameErrorLimit: 3, consecutiveFailureLimit: 5 };
const failure = (patternId: string | null, itemKey = 'mock#1', error = 'tests failed'): AttemptRecord => ({
  patternId,
  itemKey,
  tickId: 't',
  at: 0,
  outcome: 'failure',
  error,
  tokensUsed: 10,
});
const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'] } });

describe('the circuit breaker is per loop', () => {
  it("never opens daily-triage's circuit on three ci-sweeper failures in the shared ledger", async () => {
    const shared = [failure('ci-sweeper'), failure('ci-sweeper'), failure('ci-sweeper')];
    expect(circuitState(shared, limits, 'ci-sweeper')).toMatchObject({ open: true, trigger: 'same-error' });
    expect(circuitState(shared, limits, 'daily-triage')).toEqual({ open: false });

    const ports = createMemoryPorts({ plan, commands: {}, attempts: shared });
    const result = await new LoopEngine(plan, ports).tick();
    expect(result).toMatchObject({ kind: 'proposed', attempt: 1 });
    expect(ports.attempts.records.at(-1)).toMatchObject({ patternId: 'daily-triage', outcome: 'success' });
  });

  it('still opens the circuit for the loop that failed, with other loops interleaved', async () => {
    const shared = [failure('daily-triage'), failure('ci-sweeper', 'x', 'other'), failure('daily-triage'), { ...failure('ci-sweeper'), outcome: 'success' as const }, failure('daily-triage')];
    expect(circuitState(shared, limits, 'daily-triage')).toMatchObject({ open: true, trigger: 'same-error' });
    const result = await new LoopEngine(plan, createMemoryPorts({ plan, commands: {}, attempts: shared })).tick();
    expect(result).toMatchObject({ kind: 'halted', reason: 'circuit-open' });
  });

  it('counts records with no loop (written before attempt-ledger-v2) for every loop: fail-closed', async () => {
    const legacy = [failure(null), failure(null), failure(null)];
    expect(circuitState(legacy, limits, 'daily-triage')).toMatchObject({ open: true });
    expect(circuitState(legacy, limits, 'ci-sweeper')).toMatchObject({ open: true });
    // The loop's own success after them closes its circuit again.
    expect(circuitState([...legacy, { ...failure('daily-triage'), outcome: 'success' }], limits, 'daily-triage')).toEqual({ open: false });
  });

  it("counts only the loop's own failed attempts on an item, plus unknown-owner ones", () => {
    const shared = [failure('ci-sweeper'), failure('ci-sweeper'), failure('daily-triage'), failure(null)];
    expect(failedAttemptsOn(shared, { patternId: 'daily-triage', itemKey: 'mock#1' })).toBe(2);
    expect(failedAttemptsOn(shared, { patternId: 'ci-sweeper', itemKey: 'mock#1' })).toBe(3);
    expect(failedAttemptsOn(shared, { patternId: 'issue-triage', itemKey: 'mock#1' })).toBe(1);
  });

  it('an item another loop exhausted is still tried by this loop', async () => {
    const exhausted = [failure('ci-sweeper', 'mock#1', 'a'), failure('ci-sweeper', 'mock#1', 'b'), failure('ci-sweeper', 'mock#1', 'c')];
    const result = await new LoopEngine(plan, createMemoryPorts({ plan, commands: {}, attempts: exhausted })).tick();
    expect(result).toMatchObject({ kind: 'proposed', attempt: 1 });
  });
});
