/**
 * The circuit breaker walks the history backwards by index (no generator, no copy). Held here to the plain
 * definition — filter the loop's records, newest first, take at most the window — on seeded histories with
 * several loops, unowned records, repeated errors and successes, through the read-only view the memory ledger
 * returns.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/seeded-random.js';
import type { AttemptRecord } from '../ports/index.js';
import { MemoryAttemptLedger } from '../../adapters/attempt-ledger/memory-attempt-ledger.js';
import { ATTEMPT_WINDOW, circuitState, errorSignature, failedAttemptsOn, lastFailureOn, openingFailures } from './circuit-breaker.js';

const LIMITS = { maxPerItem: 3, sameErrorLimit: 3, consecutiveFailureLimit: 5 };

function newestFirst(history: readonly AttemptRecord[], patternId: string): AttemptRecord[] {
  return history.filter((record) => record.patternId === null || record.patternId === patternId).reverse();
}

function referenceCircuit(history: readonly AttemptRecord[], patternId: string): ReturnType<typeof circuitState> {
  const failures: AttemptRecord[] = [];
  for (const record of newestFirst(history, patternId)) {
    if (record.outcome !== 'failure') break;
    failures.push(record);
  }
  const first = failures[0];
  let same = 0;
  while (same < failures.length && errorSignature(failures[same]!.error ?? '') === errorSignature(first?.error ?? '')) same++;
  if (same >= LIMITS.sameErrorLimit) return { open: true, trigger: 'same-error', message: `The same error happened ${same} times in a row ("${first?.error ?? ''}").` };
  if (failures.length >= LIMITS.consecutiveFailureLimit) return { open: true, trigger: 'consecutive-failures', message: `${failures.length} consecutive failed attempts.` };
  return { open: false };
}

function referenceFailedOn(history: readonly AttemptRecord[], patternId: string, itemKey: string): number {
  let failures = 0;
  for (const record of newestFirst(history, patternId).slice(0, ATTEMPT_WINDOW)) {
    if (record.itemKey !== itemKey) continue;
    if (record.outcome === 'success') break;
    if (record.outcome === 'failure') failures++;
  }
  return failures;
}

function referenceLastFailure(history: readonly AttemptRecord[], patternId: string, itemKey: string): string | undefined {
  const record = newestFirst(history, patternId)
    .slice(0, ATTEMPT_WINDOW)
    .find((candidate) => candidate.itemKey === itemKey);
  return record?.outcome === 'failure' ? record.error : undefined;
}

function randomHistory(random: () => number, length: number): AttemptRecord[] {
  const pick = <T>(options: readonly T[]): T => options[Math.floor(random() * options.length)]!;
  return Array.from({ length }, (_, index) => {
    const outcome = pick(['failure', 'failure', 'failure', 'success', 'noop'] as const);
    return {
      patternId: pick(['ci-sweeper', 'daily-triage', 'daily-triage', null]),
      itemKey: pick(['a', 'b', 'c']),
      tickId: `t${index}`,
      at: 1_763_712_000_000 + index,
      outcome,
      ...(outcome === 'failure' ? { error: pick(['timeout after 31s', 'timeout after 29s', 'red build', 'lint']) } : {}),
      tokensUsed: index,
    };
  });
}

describe('circuit breaker index walk', () => {
  it('answers as the filtered newest-first history does, on 2,000 seeded histories (open and closed circuits both occur)', async () => {
    const random = seededRandom(20261127);
    const seen = { open: 0, closed: 0, failedOn: 0, lastFailure: 0 };
    for (let run = 0; run < 2_000; run++) {
      // Mostly short histories (circuits open and close), some past the attempt window.
      const length = run % 50 === 0 ? ATTEMPT_WINDOW + 200 : Math.floor(random() * 40);
      const records = randomHistory(random, length);
      const ledger = new MemoryAttemptLedger(records);
      const history = await ledger.history();
      for (const patternId of ['daily-triage', 'ci-sweeper', 'other']) {
        const circuit = circuitState(history, LIMITS, patternId);
        expect(circuit).toEqual(referenceCircuit(records, patternId));
        seen[circuit.open ? 'open' : 'closed']++;
        const newest = newestFirst(records, patternId);
        const run = newest.findIndex((record) => record.outcome !== 'failure');
        const expectedFailures = newest.slice(0, Math.min(4, run === -1 ? newest.length : run));
        expect(openingFailures(history, patternId, 4).map((failure) => failure.tickId)).toEqual(expectedFailures.map((record) => record.tickId));
        for (const itemKey of ['a', 'b', 'c']) {
          const failed = failedAttemptsOn(history, { patternId, itemKey });
          expect(failed).toBe(referenceFailedOn(records, patternId, itemKey));
          if (failed > 0) seen.failedOn++;
          const last = lastFailureOn(history, { patternId, itemKey });
          expect(last).toBe(referenceLastFailure(records, patternId, itemKey));
          if (last !== undefined) seen.lastFailure++;
        }
      }
    }
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(200);
  });
});
