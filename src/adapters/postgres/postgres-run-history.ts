/**
 * The run history of a fleet: one row per tick with its phases (steps and
 * their tokens), usage, verdict, commit and pull request, plus the full
 * `TickResult` as JSON. Recording the same tick twice (a recovered workflow
 * repeating its last step) keeps one row.
 */
import type { TickResult } from '../../core/engine/tick-result.js';
import type { PostgresDatabase } from './postgres-database.js';

export interface RunHistoryEntry {
  tickId: string;
  patternId: string;
  startedAt: number;
  finishedAt: number;
  kind: TickResult['kind'];
  tokens: number;
  phases: TickResult['steps'];
  verdict: string | null;
  commit: string | null;
  pullRequest: string | null;
}

export interface RunHistoryQuery {
  patternId?: string;
  /** Only ticks started at or after this time (epoch ms). */
  since?: number;
  /** Newest first; default 50. */
  limit?: number;
}

interface RunRow {
  tick_id: string;
  pattern_id: string;
  started_at: string;
  finished_at: string;
  kind: TickResult['kind'];
  tokens: string;
  phases: TickResult['steps'];
  verdict: string | null;
  commit_sha: string | null;
  pull_request: string | null;
}

/** The history row of a tick result (pure). */
export function toRunHistoryEntry(result: TickResult): RunHistoryEntry {
  const verification = 'verification' in result ? result.verification : null;
  const commit = result.kind === 'proposed' ? result.commit.sha : null;
  const pullRequest = result.kind === 'proposed' ? (result.delivery?.url ?? null) : null;
  return {
    tickId: result.tickId,
    patternId: result.patternId,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    kind: result.kind,
    tokens: result.tokens,
    phases: result.steps,
    verdict: verification?.verdict ?? null,
    commit,
    pullRequest,
  };
}

/**
 * @example
 * ```ts
 * const history = new PostgresRunHistory({ database, scope: 'acme/demo' });
 * await history.record(await engine.tick());
 * await history.list({ patternId: 'daily-triage', limit: 10 });
 * ```
 */
export class PostgresRunHistory {
  private readonly database: PostgresDatabase;
  private readonly scope: string;

  constructor(options: { database: PostgresDatabase; scope?: string }) {
    this.database = options.database;
    this.scope = options.scope ?? 'default';
  }

  /** Records a finished tick; `backend` names the backend that ran it (`"mock"` marks a rehearsal). */
  async record(result: TickResult, backend: string | null = null): Promise<void> {
    const entry = toRunHistoryEntry(result);
    await this.database.query(
      'STATE_FAILED',
      `record tick ${entry.tickId} in the run history`,
      `INSERT INTO loop_runtime_runs (scope, tick_id, pattern_id, started_at, finished_at, kind, verdict, commit_sha, pull_request, tokens, phases, record, backend)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (scope, tick_id) DO UPDATE SET finished_at = excluded.finished_at, kind = excluded.kind, verdict = excluded.verdict,
         commit_sha = excluded.commit_sha, pull_request = excluded.pull_request, tokens = excluded.tokens, phases = excluded.phases, record = excluded.record`,
      [this.scope, entry.tickId, entry.patternId, entry.startedAt, entry.finishedAt, entry.kind, entry.verdict, entry.commit, entry.pullRequest, entry.tokens, JSON.stringify(entry.phases), JSON.stringify(result), backend],
    );
  }

  /** Removes one loop's rehearsal ticks (backend `mock`) from the history; returns how many went. */
  async removeRehearsal(patternId: string): Promise<number> {
    const rows = await this.database.query<{ tick_id: string }>(
      'STATE_FAILED',
      `remove the rehearsal ticks of ${patternId} from the run history`,
      `DELETE FROM loop_runtime_runs WHERE scope = $1 AND pattern_id = $2 AND backend = 'mock' RETURNING tick_id`,
      [this.scope, patternId],
    );
    return rows.length;
  }

  /**
   * Records a human's decision on the tick's escalated change: one more phase
   * (`escalate`, 0 tokens, the decision as its note) and, for an approval, the
   * commit and pull request it produced. The tick's kind and its recorded
   * result stay as the tick left them (the schedule reads those). False when
   * the tick has no row in this scope.
   */
  async recordDecision(tickId: string, decision: { note: string; commit?: string | null; pullRequest?: string | null }): Promise<boolean> {
    const rows = await this.database.query<{ tick_id: string }>(
      'STATE_FAILED',
      `record a decision on tick ${tickId} in the run history`,
      `UPDATE loop_runtime_runs SET phases = phases || $3::jsonb, commit_sha = coalesce($4, commit_sha), pull_request = coalesce($5, pull_request)
        WHERE scope = $1 AND tick_id = $2 AND NOT phases @> $3::jsonb RETURNING tick_id`,
      [this.scope, tickId, JSON.stringify([{ phase: 'escalate', tokens: 0, note: decision.note }]), decision.commit ?? null, decision.pullRequest ?? null],
    );
    return rows.length > 0;
  }

  async list(query: RunHistoryQuery = {}): Promise<RunHistoryEntry[]> {
    const rows = await this.database.query<RunRow>(
      'STATE_FAILED',
      'read the run history',
      `SELECT tick_id, pattern_id, started_at, finished_at, kind, tokens, phases, verdict, commit_sha, pull_request FROM loop_runtime_runs
        WHERE scope = $1 AND ($2::text IS NULL OR pattern_id = $2) AND started_at >= $4 ORDER BY started_at DESC, tick_id DESC LIMIT $3`,
      [this.scope, query.patternId ?? null, query.limit ?? 50, query.since ?? 0],
    );
    return rows.map((row) => ({
      tickId: row.tick_id,
      patternId: row.pattern_id,
      startedAt: Number(row.started_at),
      finishedAt: Number(row.finished_at),
      kind: row.kind,
      tokens: Number(row.tokens),
      phases: row.phases,
      verdict: row.verdict,
      commit: row.commit_sha,
      pullRequest: row.pull_request,
    }));
  }

  /** The recorded results of these loops' ticks started at or after `since`, oldest first (what `run --due` decides from). */
  async results(query: { patternIds: readonly string[]; since: number }): Promise<TickResult[]> {
    const rows = await this.database.query<{ record: TickResult }>(
      'STATE_FAILED',
      'read the run history',
      'SELECT record FROM loop_runtime_runs WHERE scope = $1 AND pattern_id = ANY($2::text[]) AND started_at >= $3 ORDER BY started_at, tick_id',
      [this.scope, [...query.patternIds], Math.floor(query.since)],
    );
    return rows.map((row) => row.record);
  }
}
