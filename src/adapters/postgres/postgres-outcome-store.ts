/**
 * The outcome lines of a project in the fleet store: one row per line, in
 * append order (`seq`), so two checkouts or workers sharing one store agree
 * on open proposals, autonomy and metrics. A batch is appended in one
 * transaction under the scope's advisory lock; a row that does not parse is
 * `STATE_FAILED`, never a shorter history.
 */
import { foldOutcomes, formatOutcomeLine, parseOutcomeLines, type OutcomeHistory, type OutcomeLine } from '../../core/outcomes/index.js';
import type { OutcomeStore } from '../outcomes/outcome-store.js';
import { rehearsalLineIndexes, type LooseOutcomeLine } from '../outcomes/rehearsal-lines.js';
import type { PostgresDatabase } from './postgres-database.js';

/** Second key of the per-scope advisory lock appends take (the first is the scope's hash): "outc". */
const APPEND_LOCK_CLASS = 0x6f75_7463;

/**
 * @example
 * ```ts
 * const outcomes = new PostgresOutcomeStore({ database, scope: 'github.com/acme/demo' });
 * await outcomes.append(proposals, { oncePer: 'tick' }); // → 0 when another process recorded the tick first
 * ```
 */
export class PostgresOutcomeStore implements OutcomeStore {
  readonly reach = 'repository' as const;
  private readonly database: PostgresDatabase;
  private readonly scope: string;

  constructor(options: { database: PostgresDatabase; scope?: string }) {
    this.database = options.database;
    this.scope = options.scope ?? 'default';
  }

  async lines(): Promise<OutcomeLine[]> {
    const rows = await this.database.query<{ seq: string; line: string }>('STATE_FAILED', `read the outcomes of ${this.scope}`, 'SELECT seq, line::text AS line FROM loop_runtime_outcomes WHERE scope = $1 ORDER BY seq', [this.scope]);
    return rows.flatMap((row) => parseOutcomeLines(row.line, `outcomes (row ${row.seq} of loop_runtime_outcomes, ${this.database.name}, scope ${this.scope})`));
  }

  async history(): Promise<OutcomeHistory> {
    return foldOutcomes(await this.lines());
  }

  append(lines: readonly OutcomeLine[], options: { oncePer?: 'tick' } = {}): Promise<number> {
    if (lines.length === 0) return Promise.resolve(0);
    return this.database.transaction('STATE_FAILED', `append outcomes of ${this.scope}`, async (client) => {
      // One appender per scope at a time: the tick-id check and the insert see every earlier batch, and seq keeps batch order.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1), $2)', [this.scope, APPEND_LOCK_CLASS]);
      let fresh = lines;
      if (options.oncePer === 'tick') {
        const ticks = [...new Set(lines.flatMap((line) => (line.type === 'proposal' && line.tickId ? [line.tickId] : [])))];
        const recorded = new Set(
          ticks.length === 0
            ? []
            : (await client.query<{ tick_id: string }>('SELECT tick_id FROM loop_runtime_outcomes WHERE scope = $1 AND tick_id = ANY($2::text[])', [this.scope, ticks])).rows.map((row) => row.tick_id),
        );
        fresh = lines.filter((line) => !(line.type === 'proposal' && line.tickId && recorded.has(line.tickId)));
      }
      const claimed = new Set<string>();
      for (const line of fresh) {
        // The tick id is stored (unique per scope) on the first proposal of a tick appended `oncePer: 'tick'`: the index
        // refuses a second record of that tick even from a writer that skipped the lock.
        const tickId = options.oncePer === 'tick' && line.type === 'proposal' && line.tickId && !claimed.has(line.tickId) ? line.tickId : null;
        if (tickId) claimed.add(tickId);
        await client.query('INSERT INTO loop_runtime_outcomes (scope, tick_id, line) VALUES ($1, $2, $3::jsonb)', [this.scope, tickId, formatOutcomeLine(line)]);
      }
      return fresh.length;
    });
  }

  /** Deletes the rehearsal's rows (the rule of `rehearsalLineIndexes`, over the scope's rows) under the appenders' lock. */
  removeRehearsal(patternId: string): Promise<number> {
    return this.database.transaction('STATE_FAILED', `remove the rehearsal outcomes of ${patternId} in ${this.scope}`, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1), $2)', [this.scope, APPEND_LOCK_CLASS]);
      const rows = (await client.query<{ seq: string; line: LooseOutcomeLine }>("SELECT seq, line FROM loop_runtime_outcomes WHERE scope = $1 AND line->>'pattern' = $2 ORDER BY seq", [this.scope, patternId])).rows;
      const drop = [...rehearsalLineIndexes(rows.map((row) => row.line), patternId)].map((index) => rows[index]!.seq);
      if (drop.length > 0) await client.query('DELETE FROM loop_runtime_outcomes WHERE scope = $1 AND seq = ANY($2::bigint[])', [this.scope, drop]);
      return drop.length;
    });
  }
}
