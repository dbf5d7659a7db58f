export interface AttemptRecord {
  itemKey: string;
  tickId: string;
  at: number;
  outcome: 'success' | 'failure' | 'noop';
  error?: string;
  tokensUsed: number;
}

/** Attempt history per item (loop-ledger.json for the file adapter). */
export interface AttemptLedger {
  history(): Promise<readonly AttemptRecord[]>;
  append(record: AttemptRecord): Promise<void>;
}
