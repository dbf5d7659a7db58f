/**
 * `history`: past ticks in one shape whichever store holds them — the
 * fleet's run history in Postgres, or the run log beside the repository.
 */
import type { TickResult } from '../core/engine/tick-result.js';
import { runLogOutcome } from '../core/engine/tick-result.js';
import { tickState } from '../core/text/tick-state.js';
import type { RunLogEntry } from '../core/state/run-log.js';
import type { RunHistoryEntry } from '../adapters/postgres/postgres-run-history.js';

export interface RunRecord {
  loop: string;
  tickId: string | null;
  /** ISO time the tick started. */
  startedAt: string;
  finishedAt: string | null;
  /** The run log's outcome: no-op, report-only, fix-proposed, escalated, failed. */
  outcome: string;
  /** What `status`, `history`, `metrics` and the console call it (tick-state.ts): a rejected tick is `rejected`. */
  state: string;
  /** The tick's kind (proposed, report, halted, …), or the run log's kind for lines other tools wrote. */
  kind: string | null;
  tokens: number;
  verdict: string | null;
  commit: string | null;
  pullRequest: string | null;
  /** Where the record was read: the fleet store or the run log. */
  source: 'fleet' | 'run-log';
}

export interface RunQuery {
  loop?: string;
  /** Only ticks started at or after this time (epoch ms). */
  since?: number;
  limit?: number;
}

/**
 * @example
 * ```ts
 * fromRunLog({ run_id: '2026-11-23T08:00:05Z', pattern: 'daily-triage', outcome: 'report-only', tokens_estimate: 2220, duration_s: 3 });
 * // → { loop: 'daily-triage', startedAt: '2026-11-23T08:00:05.000Z', finishedAt: '2026-11-23T08:00:08.000Z', … source: 'run-log' }
 * ```
 */
export function fromRunLog(entry: RunLogEntry): RunRecord | null {
  const started = Date.parse(entry.run_id);
  if (!entry.pattern || Number.isNaN(started)) return null;
  return {
    loop: entry.pattern,
    tickId: entry.tick_id ?? null,
    startedAt: new Date(started).toISOString(),
    finishedAt: entry.duration_s === undefined ? null : new Date(started + entry.duration_s * 1000).toISOString(),
    outcome: entry.outcome ?? 'no-op',
    state: tickState(entry),
    kind: entry.kind ?? null,
    tokens: entry.tokens_estimate ?? 0,
    verdict: null,
    commit: null,
    pullRequest: null,
    source: 'run-log',
  };
}

/** A fleet run-history row in the same shape. */
export function fromRunHistory(entry: RunHistoryEntry): RunRecord {
  return {
    loop: entry.patternId,
    tickId: entry.tickId,
    startedAt: new Date(entry.startedAt).toISOString(),
    finishedAt: new Date(entry.finishedAt).toISOString(),
    // The outcome depends on the kind alone.
    outcome: runLogOutcome({ kind: entry.kind } as TickResult),
    state: tickState({ kind: entry.kind }),
    kind: entry.kind,
    tokens: entry.tokens,
    verdict: entry.verdict,
    commit: entry.commit,
    pullRequest: entry.pullRequest,
    source: 'fleet',
  };
}

/** Run-log records filtered like the fleet query: by loop and start time, newest first, at most `limit`. */
export function selectRunLogRecords(entries: readonly RunLogEntry[], query: RunQuery): RunRecord[] {
  return entries
    .map(fromRunLog)
    .filter((record): record is RunRecord => record !== null)
    .filter((record) => (query.loop ? record.loop === query.loop : true))
    .filter((record) => (query.since !== undefined ? Date.parse(record.startedAt) >= query.since : true))
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt))
    .slice(0, query.limit ?? 50);
}
