/**
 * The delivery dedupe ledger in the fleet store: one row per scope holding
 * the same document as deliveries.json, changed under `SELECT … FOR UPDATE`,
 * so the delivery protocol (reserve, push, record; reconcile a stale
 * `pending` record) runs unchanged with every worker of the fleet sharing
 * one ledger. A row that does not parse is `STATE_FAILED`, never empty.
 */
import type { DeliveryLedgerStore } from '../delivery/delivery-flow.js';
import { formatDeliveryLedger, parseDeliveryLedger, type DeliveryLedger } from '../../core/workspace/delivery-ledger.js';
import type { PostgresDatabase } from './postgres-database.js';

/**
 * @example
 * ```ts
 * const delivery = new MemoryDelivery({ delivery, clock, ledger: new PostgresDeliveryLedger({ database, scope: 'acme/demo' }) });
 * ```
 */
export class PostgresDeliveryLedger implements DeliveryLedgerStore {
  private readonly database: PostgresDatabase;
  private readonly scope: string;

  constructor(options: { database: PostgresDatabase; scope?: string }) {
    this.database = options.database;
    this.scope = options.scope ?? 'default';
  }

  update<T>(change: (ledger: DeliveryLedger) => { ledger: DeliveryLedger; result: T }): Promise<T> {
    return this.database.transaction('STATE_FAILED', `update the delivery ledger of ${this.scope}`, async (client) => {
      await client.query(`INSERT INTO loop_runtime_delivery_ledgers (scope, ledger) VALUES ($1, '') ON CONFLICT DO NOTHING`, [this.scope]);
      const rows = await client.query<{ ledger: string }>('SELECT ledger FROM loop_runtime_delivery_ledgers WHERE scope = $1 FOR UPDATE', [this.scope]);
      const current = parseDeliveryLedger(rows.rows[0]?.ledger ?? null, `deliveries.json (the document in row ${this.scope} of loop_runtime_delivery_ledgers, ${this.database.name})`);
      const { ledger, result } = change(current);
      await client.query('UPDATE loop_runtime_delivery_ledgers SET ledger = $2 WHERE scope = $1', [this.scope, formatDeliveryLedger(ledger)]);
      return result;
    });
  }

  /** Replaces the stored document (tests; manual repair). */
  async write(text: string): Promise<void> {
    await this.database.query('STATE_FAILED', `write the delivery ledger of ${this.scope}`, 'INSERT INTO loop_runtime_delivery_ledgers (scope, ledger) VALUES ($1, $2) ON CONFLICT (scope) DO UPDATE SET ledger = excluded.ledger', [
      this.scope,
      text,
    ]);
  }
}
