/**
 * `history`: past ticks in one shape whichever store holds them — the
 * fleet's run history in Postgres, or the run log beside the repository.
 */
import type { TickResult } from '../core/engine/tick-result.js';
import { runLogOutcome } from '../core/engine/tick-result.js';
import { tickState } from '../core/text/tick-state.js';
import type { RunLogEntry } from '../core/state/run-log.js';
import type { RunHistoryEntry } from '../adapters/postgres/postgres-run-history.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { LoadedProject } from '../project/load-project.js';
import { REHEARSAL_BACKEND } from '../core/outcomes/rehearsal-backend.js';
import { priceSource, tickCost, type PriceBasis, type SpendByTick } from './outcomes/tick-cost.js';

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
  /** The tick's cost in USD (`tickCost`): null when its price is unknown or the store keeps no cost (see `priceSource`). */
  costUsd: number | null;
  /** What priced `costUsd`: the list prices' date, the user's `prices:`, a rehearsal, or why there is no cost. */
  priceSource: string;
  verdict: string | null;
  commit: string | null;
  pullRequest: string | null;
  /** Where the record was read: the fleet store or the run log. */
  source: 'fleet' | 'run-log';
}

/** How run-log records are priced: the spend journal, and each loop's backend settings (null: not configured now). */
export interface RecordPricing {
  spend: SpendByTick;
  basisOf(loop: string, backend: string | undefined): PriceBasis | null;
}

function priceOf(entry: Pick<RunLogEntry, 'tick_id' | 'pattern' | 'backend'>, tokens: number, pricing: RecordPricing | undefined): { costUsd: number | null; priceSource: string } {
  if (!pricing) return { costUsd: null, priceSource: 'cost not read: no spend journal given' };
  // A fleet row names no backend: the spend rows say whether only the mock spent (a rehearsal).
  const rehearsal = entry.backend === REHEARSAL_BACKEND || (entry.backend === undefined && entry.tick_id ? pricing.spend.get(entry.tick_id)?.rehearsal === true : false);
  const costUsd = tickCost({ tickId: entry.tick_id ?? null, tokens, rehearsal }, pricing.spend);
  const configured = pricing.basisOf(entry.pattern ?? '', entry.backend);
  // A mock tick of a loop whose agent is another is a rehearsal; of a loop whose own backend is the mock, it is not.
  const basis = rehearsal ? { backend: REHEARSAL_BACKEND, model: null, prices: {}, rehearsal: pricing.basisOf(entry.pattern ?? '', undefined)?.backend !== REHEARSAL_BACKEND } : configured;
  return { costUsd, priceSource: basis ? priceSource(basis, [costUsd]) : costUsd === null ? 'price unknown: the loop is no longer configured' : 'from the spend journal' };
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
export function fromRunLog(entry: RunLogEntry, pricing?: RecordPricing): RunRecord | null {
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
    ...priceOf(entry, entry.tokens_estimate ?? 0, pricing),
    verdict: null,
    commit: null,
    pullRequest: null,
    source: 'run-log',
  };
}

/** A fleet run-history row in the same shape, priced from the store's spend rows like a run-log line. */
export function fromRunHistory(entry: RunHistoryEntry, pricing?: RecordPricing): RunRecord {
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
    ...priceOf({ tick_id: entry.tickId, pattern: entry.patternId, ...(pricing?.spend.get(entry.tickId)?.rehearsal ? { backend: REHEARSAL_BACKEND } : {}) }, entry.tokens, pricing),
    verdict: entry.verdict,
    commit: entry.commit,
    pullRequest: entry.pullRequest,
    source: 'fleet',
  };
}

/** Run-log records filtered like the fleet query: by loop and start time, newest first, at most `limit`. */
export function selectRunLogRecords(entries: readonly RunLogEntry[], query: RunQuery, pricing?: RecordPricing): RunRecord[] {
  return entries
    .map((entry) => fromRunLog(entry, pricing))
    .filter((record): record is RunRecord => record !== null)
    .filter((record) => (query.loop ? record.loop === query.loop : true))
    .filter((record) => (query.since !== undefined ? Date.parse(record.startedAt) >= query.since : true))
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt))
    .slice(0, query.limit ?? 50);
}

/**
 * The pricing of a project's records: the store's spend (`ProjectStores.spendByTick`: the file journal or the
 * Postgres rows), and each configured loop's model and `prices:`.
 */
export async function recordPricing(project: LoadedProject, spendOf: () => Promise<SpendByTick>): Promise<RecordPricing> {
  const [{ resolvePlan }, { priceBasisOf }] = await Promise.all([import('../project/load-project.js'), import('./outcomes/tick-cost.js')]);
  const backends = new Map<string, ExecutionPlan['backend']>();
  for (const id of project.configuredLoops) {
    const resolved = await resolvePlan(project, id);
    if (resolved.ok) backends.set(id, resolved.plan.backend);
  }
  const spend = await spendOf();
  return {
    spend,
    basisOf: (loop, backend) => {
      const configured = backends.get(loop);
      return configured ? priceBasisOf(configured, backend ?? configured.name) : null;
    },
  };
}
