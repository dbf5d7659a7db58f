import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../ports/index.js';
import { CIRCUIT_RESET_ITEM, circuitResetRecord, circuitState, failedAttemptsOn, openingFailures } from './circuit-breaker.js';

const limits = { maxPerItem: 3, sameErrorLimit: 3, consecutiveFailureLimit: 5 };
const failure = (patternId: string, at: number, error = 'tests failed'): AttemptRecord => ({ patternId, itemKey: 'mock#1', tickId: `t${at}`, at, outcome: 'failure', error, tokensUsed: 10 });

describe('the circuit reset marker (resume <id>)', () => {
  const opened = [failure('ci-sweeper', 1), failure('ci-sweeper', 2), failure('ci-sweeper', 3)];

  it('closes the loop’s open circuit while the failures stay, and leaves the item’s failure count alone', () => {
    expect(circuitState(opened, limits, 'ci-sweeper')).toMatchObject({ open: true, trigger: 'same-error' });
    const reset = circuitResetRecord({ patternId: 'ci-sweeper', by: 'ana@host', at: 4, tickId: 'resume-4' });
    expect(reset).toMatchObject({ itemKey: CIRCUIT_RESET_ITEM, outcome: 'noop', error: 'circuit reset by ana@host', tokensUsed: 0 });
    const history = [...opened, reset];
    expect(circuitState(history, limits, 'ci-sweeper')).toEqual({ open: false });
    expect(failedAttemptsOn(history, { patternId: 'ci-sweeper', itemKey: 'mock#1' })).toBe(3);
  });

  it('closes only its own loop: another loop’s reset leaves the circuit open', () => {
    const history = [...opened, circuitResetRecord({ patternId: 'daily-triage', by: 'ana@host', at: 4, tickId: 'resume-4' })];
    expect(circuitState(history, limits, 'ci-sweeper')).toMatchObject({ open: true });
  });

  it('new failures after a reset count from zero and open it again', () => {
    const reset = circuitResetRecord({ patternId: 'ci-sweeper', by: 'ana@host', at: 4, tickId: 'resume-4' });
    const history = [...opened, reset, failure('ci-sweeper', 5), failure('ci-sweeper', 6)];
    expect(circuitState(history, limits, 'ci-sweeper')).toEqual({ open: false });
    expect(circuitState([...history, failure('ci-sweeper', 7)], limits, 'ci-sweeper')).toMatchObject({ open: true });
  });
});

describe('openingFailures', () => {
  it('lists the run of failures since the last non-failure, newest first, capped', () => {
    const history: AttemptRecord[] = [failure('ci-sweeper', 1, 'old'), { ...failure('ci-sweeper', 2), outcome: 'success' }, failure('ci-sweeper', 3, 'a'), failure('daily-triage', 4), failure('ci-sweeper', 5, 'b')];
    expect(openingFailures(history, 'ci-sweeper').map((entry) => entry.error)).toEqual(['b', 'a']);
    expect(openingFailures(history, 'ci-sweeper', 1)).toEqual([{ tickId: 't5', itemKey: 'mock#1', at: 5, error: 'b' }]);
    expect(openingFailures([...history, { ...failure('ci-sweeper', 6), outcome: 'noop' }], 'ci-sweeper')).toEqual([]);
  });
});
