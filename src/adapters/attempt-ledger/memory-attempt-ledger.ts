import type { AttemptLedger, AttemptRecord } from '../../core/ports/index.js';

/**
 * Attempt history kept in memory: the twin of `FileAttemptLedger`, held to
 * the same conformance suite. Records are copied in and out, so a caller
 * mutating a record it appended (or read) cannot rewrite history.
 *
 * @example
 * ```ts
 * const attempts = new MemoryAttemptLedger();
 * await attempts.append({ patternId: 'ci-sweeper', itemKey: 'ci:build', tickId: 't1', at: 0, outcome: 'failure', error: 'red', tokensUsed: 900 });
 * (await attempts.history()).length; // → 1
 * ```
 */
export class MemoryAttemptLedger implements AttemptLedger {
  readonly specificationVersion = 'attempt-ledger-v2' as const;
  /** Frozen copies: what a caller holds cannot change history, and reading needs no copy of every record. */
  private readonly stored: Readonly<AttemptRecord>[];
  /** The frozen list `history()` last returned; a new one after an append (reading stays O(1) between appends). */
  private snapshot: readonly AttemptRecord[] | null = null;

  constructor(seed: readonly AttemptRecord[] = []) {
    this.stored = seed.map((record) => Object.freeze({ ...record }));
  }

  /** A copy of every record, oldest first. */
  get records(): readonly AttemptRecord[] {
    return this.stored.map((record) => ({ ...record }));
  }

  async history(): Promise<readonly AttemptRecord[]> {
    this.snapshot ??= Object.freeze(this.stored.slice());
    return this.snapshot;
  }

  async append(record: AttemptRecord): Promise<void> {
    this.stored.push(Object.freeze({ ...record }));
    this.snapshot = null;
  }
}
