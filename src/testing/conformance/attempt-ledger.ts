/**
 * The AttemptLedger contract as a vitest suite: run it against your adapter
 * and its memory twin, so the two cannot drift apart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isLoopRuntimeError } from '../../core/errors.js';
import type { AttemptLedger, AttemptRecord } from '../../core/ports/index.js';

export interface AttemptLedgerSubject {
  ledger: AttemptLedger;
  /** A second instance on the same store (another process would open one); the memory twin returns itself. */
  second: () => AttemptLedger | Promise<AttemptLedger>;
  /** A fresh instance on the same store after the first is dropped; omit for stores that do not persist. */
  reopen?: () => AttemptLedger | Promise<AttemptLedger>;
  /** Damages the store so it cannot be read; omit for stores that cannot be corrupted. */
  corrupt?: () => Promise<void>;
  cleanup?: () => Promise<void>;
}

const record = (patternId: string | null, index: number, outcome: AttemptRecord['outcome'] = 'failure'): AttemptRecord => ({
  patternId,
  itemKey: `item#${index % 3}`,
  tickId: `tick-${index}`,
  at: Date.UTC(2026, 10, 21, 8, 0, index),
  outcome,
  ...(outcome === 'failure' ? { error: `error ${index}` } : {}),
  tokensUsed: 100 + index,
});

/**
 * @example
 * ```ts
 * describeAttemptLedgerConformance('MemoryAttemptLedger', async () => {
 *   const ledger = new MemoryAttemptLedger();
 *   return { ledger, second: () => ledger };
 * });
 * ```
 */
export function describeAttemptLedgerConformance(name: string, makeSubject: () => Promise<AttemptLedgerSubject>): void {
  describe(`AttemptLedger conformance: ${name}`, () => {
    let subject: AttemptLedgerSubject | undefined;
    const open = async () => (subject = await makeSubject());
    afterEach(async () => {
      await subject?.cleanup?.();
      subject = undefined;
    });

    it('declares attempt-ledger-v2 and starts empty', async () => {
      const { ledger } = await open();
      expect(ledger.specificationVersion).toBe('attempt-ledger-v2');
      expect(await ledger.history()).toEqual([]);
    });

    it('keeps the records of two loops (and of no known loop) in append order, each with its patternId', async () => {
      const { ledger } = await open();
      const written = [record('ci-sweeper', 0), record('daily-triage', 1, 'success'), record(null, 2, 'noop'), record('ci-sweeper', 3)];
      for (const entry of written) await ledger.append(entry);
      expect(await ledger.history()).toEqual(written);
    });

    it('is not rewritten by a caller mutating what it appended or read', async () => {
      const { ledger } = await open();
      const entry = record('ci-sweeper', 0);
      await ledger.append(entry);
      entry.outcome = 'success';
      const [read] = await ledger.history();
      if (read) Reflect.set(read, 'outcome', 'noop');
      expect((await ledger.history())[0]?.outcome).toBe('failure');
    });

    it('shows an append to another instance on the same store', async () => {
      const { ledger, second } = await open();
      await ledger.append(record('ci-sweeper', 0));
      const other = await second();
      await other.append(record('daily-triage', 1));
      expect((await ledger.history()).map((entry) => entry.patternId)).toEqual(['ci-sweeper', 'daily-triage']);
    });

    it('loses no record when two instances append concurrently', async () => {
      const { ledger, second } = await open();
      const other = await second();
      const writes = Array.from({ length: 16 }, (_, index) => (index % 2 ? other : ledger).append(record(index % 2 ? 'daily-triage' : 'ci-sweeper', index)));
      await Promise.all(writes);
      const ticks = (await ledger.history()).map((entry) => entry.tickId).sort();
      expect(ticks).toEqual(Array.from({ length: 16 }, (_, index) => `tick-${index}`).sort());
    });

    it('survives being reopened', async () => {
      const { ledger, reopen } = await open();
      if (!reopen) return;
      const written = [record('ci-sweeper', 0), record('daily-triage', 1, 'success')];
      for (const entry of written) await ledger.append(entry);
      expect(await (await reopen()).history()).toEqual(written);
    });

    it('reports a corrupt store as a coded error, never as an empty history', async () => {
      const { ledger, corrupt } = await open();
      if (!corrupt) return;
      await ledger.append(record('ci-sweeper', 0));
      await corrupt();
      const error = await ledger.history().then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(isLoopRuntimeError(error) ? error.code : error).toBe('STATE_FAILED');
      const onAppend = await ledger.append(record('ci-sweeper', 1)).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(isLoopRuntimeError(onAppend) ? onAppend.code : onAppend).toBe('STATE_FAILED');
    });
  });
}
