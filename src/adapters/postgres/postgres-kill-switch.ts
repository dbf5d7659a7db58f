/**
 * The kill switch on the fleet store: pauses and halts that need a human are
 * rows keyed by the project's scope, so a halt one checkout's tick set stops
 * every other checkout's and machine's next tick, and `pause`/`resume` from
 * any of them reach all. The forms that live in the repository (the root
 * `loop-pause-all` file, the state-file line, the env variable) are the
 * methodology's and still apply: they are read through `repository`.
 */
import type { LoopHalt, PauseRequest, PauseSource, PauseStatus, StickyHaltReason, StoreKillSwitch } from '../../core/ports/index.js';
import { pauseStatusOf } from '../../core/ports/kill-switch.js';
import type { PostgresDatabase } from './postgres-database.js';

/** Pattern id of the row that pauses every loop of a scope. */
const ALL = '*';
const STICKY: readonly string[] = ['backend-stopped', 'budget-overrun'] satisfies readonly StickyHaltReason[];

export interface PostgresKillSwitchOptions {
  database: PostgresDatabase;
  scope?: string;
  /** The loop this switch guards; absent: only the project-wide pause is read (and written). */
  patternId?: string;
  /** The repository's own forms (root file, state-file line, env variable), read on every machine. */
  repository: { sources(): Promise<PauseSource[]>; resume(scope?: { patternId?: string }): Promise<void> };
  /** Where halted and resumed lines are also written for people reading the run log (history, not authority). */
  runLog?: { halt(record: LoopHalt): Promise<void>; clearHalt(request: { by: string; at: number }): Promise<LoopHalt | null> };
  /** Applied to a halt's message before it is stored. */
  redact?: (text: string) => string;
  /** Time for pauses recorded without `at` (epoch ms). */
  now: () => number;
}

interface HaltRow {
  pattern_id: string;
  tick_id: string;
  reason: string;
  message: string;
  started_at: string;
  at: string;
  tokens: string;
}

interface PauseRow {
  pattern_id: string;
  paused_by: string;
  reason: string | null;
  at: string;
}

/**
 * @example
 * ```ts
 * const kill = new PostgresKillSwitch({ database, scope: 'github.com/acme/demo', patternId: 'ci-sweeper', repository, now: () => Date.now() });
 * await kill.pause({ patternId: 'ci-sweeper', by: 'ana@host', reason: 'flaky CI' }); // every checkout's next tick stops
 * ```
 */
export class PostgresKillSwitch implements StoreKillSwitch {
  readonly specificationVersion = 'kill-switch-v1' as const;
  private readonly scope: string;

  constructor(private readonly options: PostgresKillSwitchOptions) {
    this.scope = options.scope ?? 'default';
  }

  /** A halt outranks a pause: it is the reason a human must act. */
  async check(): Promise<PauseStatus> {
    // One halt query and one pause query per check: it runs at tick start and before every backend call.
    const { halt, found } = await this.gather();
    return pauseStatusOf(halt, found);
  }

  async activeHalt(): Promise<LoopHalt | null> {
    const patternId = this.options.patternId;
    if (!patternId) return null;
    const [row] = await this.options.database.query<HaltRow>(
      'STATE_FAILED',
      `read the halt of ${patternId}`,
      'SELECT pattern_id, tick_id, reason, message, started_at, at, tokens FROM loop_runtime_halts WHERE scope = $1 AND pattern_id = $2 AND cleared_at IS NULL ORDER BY seq DESC LIMIT 1',
      [this.scope, patternId],
    );
    if (!row) return null;
    // A reason this version does not know still halts (fail closed), as the run log's lines do.
    const reason = (STICKY.includes(row.reason) ? row.reason : 'backend-stopped') as StickyHaltReason;
    return { patternId, reason, message: row.message, tickId: row.tick_id, startedAt: Number(row.started_at), at: Number(row.at), tokens: Number(row.tokens) };
  }

  async halt(record: LoopHalt): Promise<void> {
    const message = (this.options.redact ?? ((text: string) => text))(record.message);
    await this.options.database.query(
      'STATE_FAILED',
      `record the halt of ${record.patternId} (tick ${record.tickId})`,
      'INSERT INTO loop_runtime_halts (scope, pattern_id, tick_id, reason, message, started_at, at, tokens) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [this.scope, record.patternId, record.tickId, record.reason, message, record.startedAt, record.at, record.tokens],
    );
    await this.options.runLog?.halt(record);
  }

  async clearHalt(request: { by: string; at: number }): Promise<LoopHalt | null> {
    const cleared = await this.activeHalt();
    if (!cleared) return null;
    await this.options.database.query(
      'STATE_FAILED',
      `clear the halt of ${cleared.patternId}`,
      'UPDATE loop_runtime_halts SET cleared_by = $3, cleared_at = $4 WHERE scope = $1 AND pattern_id = $2 AND cleared_at IS NULL',
      [this.scope, cleared.patternId, request.by, request.at],
    );
    await this.options.runLog?.clearHalt(request);
    return cleared;
  }

  async pause(request: PauseRequest = {}): Promise<void> {
    const key = request.patternId ?? ALL;
    await this.options.database.query(
      'STATE_FAILED',
      `pause ${request.patternId ?? 'every loop'}`,
      `INSERT INTO loop_runtime_pauses (scope, pattern_id, paused_by, reason, at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (scope, pattern_id) DO UPDATE SET paused_by = EXCLUDED.paused_by, reason = EXCLUDED.reason, at = EXCLUDED.at`,
      [this.scope, key, request.by ?? 'unknown', request.reason ?? null, request.at ?? this.options.now()],
    );
  }

  /** Deletes the store's pause row; resuming every loop also removes the repository's `loop-pause-all` file, as on files. */
  async resume(scope: { patternId?: string } = {}): Promise<void> {
    await this.options.database.query('STATE_FAILED', `resume ${scope.patternId ?? 'every loop'}`, 'DELETE FROM loop_runtime_pauses WHERE scope = $1 AND pattern_id = $2', [
      this.scope,
      scope.patternId ?? ALL,
    ]);
    if (!scope.patternId) await this.options.repository.resume({});
  }

  /** The halt, the repository's forms, then the store's pauses (every loop's first). */
  async sources(): Promise<PauseSource[]> {
    return (await this.gather()).found;
  }

  private async gather(): Promise<{ halt: LoopHalt | null; found: PauseSource[] }> {
    const patternId = this.options.patternId;
    const keys = patternId ? [ALL, patternId] : [ALL];
    const [halt, repository, rows] = await Promise.all([
      this.activeHalt(),
      this.options.repository.sources(),
      this.options.database.query<PauseRow>('STATE_FAILED', 'read the pauses', 'SELECT pattern_id, paused_by, reason, at FROM loop_runtime_pauses WHERE scope = $1 AND pattern_id = ANY($2)', [this.scope, keys]),
    ]);
    const found: PauseSource[] = [];
    if (halt) {
      found.push({ kind: 'halt', source: `halted (${halt.reason}) since ${new Date(halt.at).toISOString()}; loop-runtime resume ${halt.patternId} clears it`, clearable: true, since: halt.at });
    }
    found.push(...repository);
    for (const row of rows.sort((left, right) => (left.pattern_id === ALL ? -1 : right.pattern_id === ALL ? 1 : 0))) {
      const what = row.pattern_id === ALL ? 'every loop' : row.pattern_id;
      const why = row.reason ? `: ${row.reason}` : '';
      found.push({ kind: 'store', source: `store pause of ${what} by ${row.paused_by}${why}`, clearable: true, ...(row.pattern_id === ALL ? {} : { loop: row.pattern_id }), by: row.paused_by, ...(row.reason ? { reason: row.reason } : {}), since: Number(row.at) });
    }
    return { halt, found };
  }
}
