/**
 * attempt-ledger-v2 on Postgres: one row per attempt, read back in append
 * (sequence) order. A store that cannot be reached is `STATE_FAILED`.
 */
import type { AttemptLedger, AttemptRecord } from '../../core/ports/index.js';
import type { PostgresDatabase } from './postgres-database.js';

export interface PostgresAttemptLedgerOptions {
  database: PostgresDatabase;
  scope?: string;
  /** The backend whose attempts this ledger appends, stored on each row (`"mock"` marks rehearsals). */
  backend?: string;
}

interface AttemptRow {
  pattern_id: string | null;
  item_key: string;
  tick_id: string;
  at: string;
  outcome: AttemptRecord['outcome'];
  error: string | null;
  tokens_used: string;
}

/**
 * @example
 * ```ts
 * const attempts = new PostgresAttemptLedger({ database, scope: 'acme/demo' });
 * await attempts.append({ patternId: 'ci-sweeper', itemKey: 'ci#1', tickId, at, outcome: 'failure', error: 'red', tokensUsed: 900 });
 * ```
 */
export class PostgresAttemptLedger implements AttemptLedger {
  readonly specificationVersion = 'attempt-ledger-v2' as const;
  private readonly database: PostgresDatabase;
  private readonly scope: string;
  private readonly backend: string | null;

  constructor(options: PostgresAttemptLedgerOptions) {
    this.database = options.database;
    this.scope = options.scope ?? 'default';
    this.backend = options.backend ?? null;
  }

  async history(): Promise<readonly AttemptRecord[]> {
    const rows = await this.database.query<AttemptRow>(
      'STATE_FAILED',
      'read the attempt history',
      'SELECT pattern_id, item_key, tick_id, at, outcome, error, tokens_used FROM loop_runtime_attempts WHERE scope = $1 ORDER BY seq',
      [this.scope],
    );
    return rows.map((row) => ({
      patternId: row.pattern_id,
      itemKey: row.item_key,
      tickId: row.tick_id,
      at: Number(row.at),
      outcome: row.outcome,
      ...(row.error === null ? {} : { error: row.error }),
      tokensUsed: Number(row.tokens_used),
    }));
  }

  async append(record: AttemptRecord): Promise<void> {
    await this.database.query(
      'STATE_FAILED',
      `append the attempt of tick ${record.tickId}`,
      'INSERT INTO loop_runtime_attempts (scope, pattern_id, item_key, tick_id, at, outcome, error, tokens_used, backend) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [this.scope, record.patternId, record.itemKey, record.tickId, record.at, record.outcome, record.error ?? null, record.tokensUsed, this.backend],
    );
  }

  /** Removes one loop's rehearsal attempts (backend `mock`); returns how many went. Other backends' rows stay. */
  async removeRehearsal(patternId: string): Promise<number> {
    const rows = await this.database.query<{ seq: string }>(
      'STATE_FAILED',
      `remove the rehearsal attempts of ${patternId}`,
      `DELETE FROM loop_runtime_attempts WHERE scope = $1 AND pattern_id = $2 AND backend = 'mock' RETURNING seq`,
      [this.scope, patternId],
    );
    return rows.length;
  }
}
