/**
 * Item and loop leases on Postgres: one row per (scope, kind, key), taken
 * with a single `INSERT … ON CONFLICT DO UPDATE … WHERE stale`, so exactly
 * one acquirer wins, a lease older than `staleMs` by the injected clock is
 * taken over, and a release deletes only the row carrying its own token.
 *
 * Fencing: every acquire — a fresh row, a takeover, the same holder's token
 * taken again — draws the next number of one sequence into the row's `fence`.
 * A holder is the holder while the row still carries its token and fence
 * (`stillHeld`); once a later acquire replaced them, its refresh, release and
 * `stillHeld` all answer that it lost the lease, and a tick stops before its
 * next shared write (`fenceTickPorts`).
 */
import { randomUUID } from 'node:crypto';
import type { Clock, ItemLeaseResult, ItemLeases } from '../../core/ports/index.js';
import type { PostgresDatabase } from './postgres-database.js';

export interface PostgresLeasesOptions {
  database: PostgresDatabase;
  clock: Clock;
  scope?: string;
  /** A lease older than this may be taken over (default 15 minutes, as the file leases). */
  staleMs?: number;
}

export type PostgresLeaseResult =
  | {
      ok: true;
      token: string;
      /** Strictly greater than every earlier acquire's of this lease. */
      fence: number;
      refresh(): Promise<boolean>;
      /** True while the row carries this acquire's token and fence (a stale row no one took over is still held). */
      stillHeld(): Promise<boolean>;
      release(): Promise<void>;
    }
  | { ok: false; holder: string; tickId: string; message: string };

class LeaseTable {
  constructor(
    private readonly options: PostgresLeasesOptions,
    private readonly kind: 'item' | 'loop',
  ) {}

  /**
   * With `token`, a lease that already carries that token is taken again (refreshed) whatever its age: the same
   * holder — a fleet tick resumed on another worker — comes back for its own lease.
   */
  async acquire(key: string, holder: string, tickId: string, ownToken?: string): Promise<PostgresLeaseResult> {
    const { database, clock } = this.options;
    const scope = this.options.scope ?? 'default';
    const staleMs = this.options.staleMs ?? 15 * 60_000;
    const token = ownToken ?? randomUUID();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const now = clock.now();
      const won = await database.query<{ fence: string }>(
        'STATE_FAILED',
        `take the ${this.kind} lease ${key}`,
        `INSERT INTO loop_runtime_leases (scope, kind, key, holder, tick_id, since, token) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (scope, kind, key) DO UPDATE SET holder = excluded.holder, tick_id = excluded.tick_id, since = excluded.since, token = excluded.token,
           fence = nextval('loop_runtime_lease_fence')
         WHERE loop_runtime_leases.since < $6 - $8::bigint OR loop_runtime_leases.token = $7 RETURNING fence`,
        [scope, this.kind, key, holder, tickId, now, token, staleMs],
      );
      if (won[0]) return this.held(scope, key, token, Number(won[0].fence));
      const current = await database.query<{ holder: string; tick_id: string }>(
        'STATE_FAILED',
        `read the ${this.kind} lease ${key}`,
        'SELECT holder, tick_id FROM loop_runtime_leases WHERE scope = $1 AND kind = $2 AND key = $3',
        [scope, this.kind, key],
      );
      const row = current[0];
      // Released between the two statements: try again.
      if (!row) continue;
      return { ok: false, holder: row.holder, tickId: row.tick_id, message: `${this.kind === 'item' ? 'Item' : 'Loop'} ${key} is held by ${row.holder} (tick ${row.tick_id}) in the fleet store.` };
    }
    return { ok: false, holder: 'unknown', tickId: 'unknown', message: `The ${this.kind} lease ${key} kept changing hands; another worker is taking it.` };
  }

  private held(scope: string, key: string, token: string, fence: number): PostgresLeaseResult {
    const { database, clock } = this.options;
    let released = false;
    // Ours while the row carries both: the same token taken again (a resumed fleet tick) draws a new fence.
    const ours = 'scope = $1 AND kind = $2 AND key = $3 AND token = $4 AND fence = $5';
    return {
      ok: true,
      token,
      fence,
      refresh: async () => {
        const rows = await database.query('STATE_FAILED', `refresh the ${this.kind} lease ${key}`, `UPDATE loop_runtime_leases SET since = $6 WHERE ${ours} RETURNING key`, [
          scope,
          this.kind,
          key,
          token,
          fence,
          clock.now(),
        ]);
        return rows.length > 0;
      },
      stillHeld: async () => {
        const rows = await database.query('STATE_FAILED', `check the ${this.kind} lease ${key} is still held`, `SELECT 1 FROM loop_runtime_leases WHERE ${ours}`, [scope, this.kind, key, token, fence]);
        return rows.length > 0;
      },
      release: async () => {
        if (released) return;
        // Only our own row: a lease taken over after ours went stale stays with its new holder.
        await database.query('STATE_FAILED', `release the ${this.kind} lease ${key}`, `DELETE FROM loop_runtime_leases WHERE ${ours}`, [scope, this.kind, key, token, fence]);
        // Only once deleted: a release that failed (the store unreachable) can be tried again.
        released = true;
      },
    };
  }
}

/**
 * item-leases-v1 shared by every worker.
 *
 * @example
 * ```ts
 * const items = new PostgresItemLeases({ database, clock: systemClock, scope: 'acme/demo' });
 * const lease = await items.acquire({ itemKey: 'issue#7', patternId: 'issue-triage', tickId });
 * ```
 */
export class PostgresItemLeases implements ItemLeases {
  readonly specificationVersion = 'item-leases-v1' as const;
  private readonly table: LeaseTable;

  constructor(options: PostgresLeasesOptions) {
    this.table = new LeaseTable(options, 'item');
  }

  async acquire(request: { itemKey: string; patternId: string; tickId: string }): Promise<ItemLeaseResult> {
    const result = await this.table.acquire(request.itemKey, request.patternId, request.tickId);
    return result.ok ? { ok: true, release: result.release } : { ok: false, holder: result.holder, message: result.message };
  }
}

/**
 * One tick per loop fleet-wide: the loop lease. A holder refreshes it while
 * its tick runs; one that stops refreshing for `staleMs` is taken over.
 */
export class PostgresLoopLeases {
  private readonly table: LeaseTable;

  constructor(options: PostgresLeasesOptions) {
    this.table = new LeaseTable(options, 'loop');
  }

  /** `token`: the holder's own (e.g. a fleet tick's workflow id), so the same holder can take its lease again. */
  acquire(request: { patternId: string; holder: string; tickId: string; token?: string }): Promise<PostgresLeaseResult> {
    return this.table.acquire(request.patternId, request.holder, request.tickId, request.token);
  }
}
