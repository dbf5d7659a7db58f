export interface AttemptRecord {
  /**
   * The loop that made the attempt. `null` on records written before `attempt-ledger-v2` (or by other tools):
   * nobody knows whose they are, so they count for every loop (fail-closed: an unknown failure can open a
   * circuit, never hide one).
   */
  patternId: string | null;
  itemKey: string;
  tickId: string;
  at: number;
  outcome: 'success' | 'failure' | 'noop';
  error?: string;
  tokensUsed: number;
}

/**
 * Attempt history of every loop sharing one ledger (loop-ledger.json for the file adapter).
 *
 * Contract (see `describeAttemptLedgerConformance` in `loop-runtime/testing/conformance`):
 * - `history()` returns every record, oldest first, in append order, with `patternId` preserved;
 * - an appended record is visible to the next `history()`, also from another instance on the same store;
 * - a store that cannot be read or parsed is an error (a coded `LoopRuntimeError`), never an empty history.
 */
export interface AttemptLedger {
  readonly specificationVersion: 'attempt-ledger-v2';
  history(): Promise<readonly AttemptRecord[]>;
  append(record: AttemptRecord): Promise<void>;
}
