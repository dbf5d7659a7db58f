/**
 * budget-ledger-v2 on Postgres, shared by every worker of a fleet. Opens
 * and closes are single transactions; `openWithinCap` takes the loop's
 * per-day row `FOR UPDATE` before it sums the day's spend, so reservations
 * against one cap are decided one at a time across all workers and their
 * sum never passes the cap.
 */
import { randomUUID } from 'node:crypto';
import type {
  AgentRole,
  BudgetLedger,
  CappedOpenResult,
  CloseResult,
  OpenReservation,
  ReconcileRequest,
  ReservationRequest,
  SettleUsage,
  SpendEntry,
} from '../../core/ports/index.js';
import type { PostgresDatabase, Queryable } from './postgres-database.js';

export interface PostgresBudgetLedgerOptions {
  database: PostgresDatabase;
  /** Which fleet the spend belongs to (e.g. the repository); loops of different scopes never share a cap. */
  scope?: string;
  /**
   * The backend this ledger journals for, written on every row it adds. A real backend's ledger does not count
   * `mock` rows (rehearsals never spend a real cap); a mock ledger counts everything, as the file ledger does.
   */
  backend?: string;
}

interface EntryRow {
  id: string;
  day: string;
  pattern_id: string;
  tick_id: string;
  phase: string;
  at: string;
  tokens: string;
  state: 'open' | 'settled' | 'reconciled' | 'recorded';
}

const CODE = 'BUDGET_LEDGER_UNREADABLE';
const SPENT_SQL = `SELECT coalesce(sum(CASE WHEN state = 'open' THEN tokens ELSE spent END), 0) AS spent
  FROM loop_runtime_budget_entries WHERE scope = $1 AND day = $2 AND pattern_id = $3 AND ($4::boolean OR backend IS DISTINCT FROM 'mock')`;

function toReservation(row: EntryRow): OpenReservation {
  return { id: row.id, at: Number(row.at), day: row.day, patternId: row.pattern_id, tickId: row.tick_id, phase: row.phase as AgentRole, tokens: Number(row.tokens) };
}

/**
 * @example
 * ```ts
 * const ledger = new PostgresBudgetLedger({ database, scope: 'acme/demo' });
 * const budget = new BudgetBreaker(100_000, { ledger }); // reserves through openWithinCap
 * ```
 */
export class PostgresBudgetLedger implements BudgetLedger {
  readonly specificationVersion = 'budget-ledger-v2' as const;
  private readonly database: PostgresDatabase;
  private readonly scope: string;
  private readonly backend: string | null;

  constructor(options: PostgresBudgetLedgerOptions) {
    this.database = options.database;
    this.scope = options.scope ?? 'default';
    this.backend = options.backend ?? null;
  }

  /** Whether `mock` rows count: only for the mock's own ledger. */
  private get countsMock(): boolean {
    return this.backend === 'mock';
  }

  async open(request: ReservationRequest): Promise<OpenReservation> {
    return this.database.transaction(CODE, `open a reservation for ${request.patternId}`, (client) => this.insertOpen(client, request));
  }

  async openWithinCap(request: ReservationRequest, cap: number): Promise<CappedOpenResult> {
    return this.database.transaction(CODE, `reserve ${request.tokens} tokens for ${request.patternId}`, async (client) => {
      await client.query('INSERT INTO loop_runtime_budget_days (scope, day, pattern_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [this.scope, request.day, request.patternId]);
      await client.query('SELECT 1 FROM loop_runtime_budget_days WHERE scope = $1 AND day = $2 AND pattern_id = $3 FOR UPDATE', [this.scope, request.day, request.patternId]);
      const spent = Number((await client.query<{ spent: string }>(SPENT_SQL, [this.scope, request.day, request.patternId, this.countsMock])).rows[0]?.spent ?? 0);
      if (spent + request.tokens > cap) return { ok: false, spent };
      return { ok: true, reservation: await this.insertOpen(client, request) };
    });
  }

  async settle(reservationId: string, usage: SettleUsage): Promise<CloseResult> {
    return this.close(reservationId, 'settle', usage.at, usage.tokens, { costUsd: usage.costUsd, reason: null });
  }

  async reconcile(reservationId: string, request: ReconcileRequest): Promise<CloseResult> {
    return this.close(reservationId, 'reconcile', request.at, request.tokens, { costUsd: null, reason: request.reason });
  }

  async openReservations(query: { day: string; patternId?: string }): Promise<OpenReservation[]> {
    const rows = await this.database.query<EntryRow>(
      CODE,
      `list the open reservations of ${query.day}`,
      `SELECT id, day, pattern_id, tick_id, phase, at, tokens, state FROM loop_runtime_budget_entries
        WHERE scope = $1 AND day = $2 AND state = 'open' AND ($3::text IS NULL OR pattern_id = $3) ORDER BY seq`,
      [this.scope, query.day, query.patternId ?? null],
    );
    return rows.map(toReservation);
  }

  async spentOn(day: string, patternId: string): Promise<number> {
    const rows = await this.database.query<{ spent: string }>(CODE, `read the spend of ${patternId} on ${day}`, SPENT_SQL, [this.scope, day, patternId, this.countsMock]);
    return Number(rows[0]?.spent ?? 0);
  }

  /**
   * Tokens and dollars per tick as settled, recorded and reconciled here — what the file journal's `spendByTick`
   * reads from `spend.jsonl`, for the one pricing (`tick-cost.ts`). A tick with tokens at no known price costs null,
   * never the sum of its priced part; a tick journalled only by the mock is a rehearsal. Every backend's rows.
   */
  async spendByTick(query: { day?: string; tickIds?: readonly string[] } = {}): Promise<Map<string, { tokens: number; costUsd: number | null; patternId: string; day: string; rehearsal: boolean }>> {
    const rows = await this.database.query<{ tick_id: string; pattern_id: string; day: string; tokens: string; cost: number | null; unpriced: boolean; rehearsal: boolean }>(
      CODE,
      'read the spend per tick',
      `SELECT tick_id, min(pattern_id) AS pattern_id, min(day) AS day, sum(spent) AS tokens, sum(cost_usd) AS cost,
              bool_or(cost_usd IS NULL AND spent > 0) AS unpriced, bool_and(backend = 'mock') AS rehearsal
         FROM loop_runtime_budget_entries
        WHERE scope = $1 AND state <> 'open' AND ($2::text IS NULL OR day = $2) AND ($3::text[] IS NULL OR tick_id = ANY($3))
        GROUP BY tick_id`,
      [this.scope, query.day ?? null, query.tickIds ? [...query.tickIds] : null],
    );
    return new Map(
      rows.map((row) => [row.tick_id, { tokens: Number(row.tokens), costUsd: row.unpriced || row.cost === null ? null : Number(row.cost), patternId: row.pattern_id, day: row.day, rehearsal: row.rehearsal === true }]),
    );
  }

  /** Deletes one loop's rehearsal rows (those the mock backend wrote), for `reset <id> --mock`; returns how many went. */
  async removeRehearsal(patternId: string): Promise<number> {
    const rows = await this.database.query<{ id: string }>(
      CODE,
      `remove the rehearsal spend of ${patternId}`,
      `DELETE FROM loop_runtime_budget_entries WHERE scope = $1 AND pattern_id = $2 AND backend = 'mock' RETURNING id`,
      [this.scope, patternId],
    );
    return rows.length;
  }

  async record(entry: SpendEntry): Promise<void> {
    await this.database.query(
      CODE,
      `record spend for ${entry.patternId}`,
      `INSERT INTO loop_runtime_budget_entries (scope, id, day, pattern_id, tick_id, phase, at, tokens, state, spent, cost_usd, closed_at, backend)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'recorded', $8, $9, $7, $10)`,
      [this.scope, `s-${randomUUID()}`, entry.day, entry.patternId, entry.tickId, entry.phase, entry.at, Math.max(0, Math.ceil(entry.tokens)), entry.costUsd, this.backend],
    );
  }

  private async insertOpen(client: Queryable, request: ReservationRequest): Promise<OpenReservation> {
    const reservation: OpenReservation = { ...request, id: `r-${randomUUID()}` };
    await client.query(
      `INSERT INTO loop_runtime_budget_entries (scope, id, day, pattern_id, tick_id, phase, at, tokens, state, backend)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open', $9)`,
      [this.scope, reservation.id, request.day, request.patternId, request.tickId, request.phase, request.at, request.tokens, this.backend],
    );
    return reservation;
  }

  private close(id: string, how: 'settle' | 'reconcile', at: number, tokens: number, extra: { costUsd: number | null; reason: string | null }): Promise<CloseResult> {
    return this.database.transaction(CODE, `${how} reservation ${id}`, async (client): Promise<CloseResult> => {
      const found = await client.query<EntryRow>('SELECT id, state FROM loop_runtime_budget_entries WHERE scope = $1 AND id = $2 FOR UPDATE', [this.scope, id]);
      const row = found.rows[0];
      if (!row || row.state === 'recorded') return { ok: false, reason: 'unknown-reservation', message: `No reservation ${id} was opened in the fleet budget ledger (${this.database.name}).` };
      const replacesReconcile = how === 'settle' && row.state === 'reconciled';
      if (row.state !== 'open' && !replacesReconcile) return { ok: false, reason: 'already-closed', message: `Reservation ${id} is already closed (${row.state}); nothing changed.` };
      await client.query(
        `UPDATE loop_runtime_budget_entries SET state = $3, spent = $4, cost_usd = $5, closed_at = $6, reason = $7 WHERE scope = $1 AND id = $2`,
        [this.scope, id, how === 'settle' ? 'settled' : 'reconciled', Math.max(0, Math.ceil(tokens)), extra.costUsd, at, extra.reason],
      );
      return { ok: true, id, tokens: Math.max(0, Math.ceil(tokens)), replaced: replacesReconcile ? 'reconcile' : null };
    });
  }
}
