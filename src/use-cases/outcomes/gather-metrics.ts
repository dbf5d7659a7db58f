/**
 * `metrics`: reads each loop's run log, the store's spend per tick and its outcome lines,
 * and hands them to the pure `computeLoopMetrics`; adds the promotion
 * recommendation with its evidence (acceptance, volume, days at the level,
 * the loop-audit score).
 */
import { join } from 'node:path';
import {
  changesSince,
  computeLoopMetrics,
  DEFAULT_AUTONOMY,
  lastLevelChange,
  recommendPromotion,
  REHEARSAL_BACKEND,
  withoutRehearsals,
  type HumanDecisionFact,
  type LoopMetrics,
  type OutcomeHistory,
  type PromotionRecommendation,
  type TickFact,
} from '../../core/outcomes/index.js';
import { parseRunLog, type RunLogEntry } from '../../core/state/run-log.js';
import { parseTimestamp } from '../../core/time/utc-time.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import { readTextOrNull } from '../../adapters/fs/atomic-file.js';
import type { OutcomeStore } from '../../adapters/outcomes/outcome-store.js';
import { tickCost, type SpendByTick } from './tick-cost.js';
import type { AuditResult } from '../../adapters/outcomes/loop-audit.js';

export interface LoopMetricsReport extends LoopMetrics {
  level: string;
  autonomy: 'on' | 'off';
  promotion: PromotionRecommendation;
}

// The one pricing of a tick's spend (tick-cost.ts), re-exported where `ci` finds the file journal's (its Action reads files).
export { spendByTick } from './spend-by-tick.js';

/** The run log's entries that are results: a mock tick's line is a rehearsal. */
export function realRunLog(text: string): RunLogEntry[] {
  return parseRunLog(text).filter((entry) => entry.backend !== REHEARSAL_BACKEND);
}

const NOT_TICKS = new Set(['human-approved', 'human-rejected', 'level-change', 'resumed', 'delivery-retried']);

/** Ticks of one loop from its run-log entries, with spend from the journal (the run log's estimate when the journal has none). */
export function tickFacts(entries: readonly RunLogEntry[], pattern: string, spend: SpendByTick): TickFact[] {
  return entries
    .filter((entry) => entry.pattern === pattern && !NOT_TICKS.has(entry.kind ?? ''))
    .map((entry) => {
      const spent = entry.tick_id ? spend.get(entry.tick_id) : undefined;
      return {
        tickId: entry.tick_id ?? null,
        at: parseTimestamp(entry.run_id),
        kind: entry.kind ?? entry.outcome ?? 'unknown',
        tokens: spent?.tokens ?? entry.tokens_estimate ?? 0,
        costUsd: tickCost({ tickId: entry.tick_id ?? null, tokens: spent?.tokens ?? entry.tokens_estimate ?? 0 }, spend),
      };
    });
}

function humanFacts(entries: readonly RunLogEntry[], pattern: string): HumanDecisionFact[] {
  return entries
    .filter((entry) => entry.pattern === pattern && (entry.kind === 'human-approved' || entry.kind === 'human-rejected'))
    .map((entry) => ({ at: parseTimestamp(entry.run_id), decision: entry.kind === 'human-approved' ? 'approved' : 'rejected' }));
}

/** When the loop reached its current level: its last level change, else the start of the run log's tail of ticks at that level. */
export function levelSince(history: OutcomeHistory, entries: readonly RunLogEntry[], plan: ExecutionPlan): number {
  const change = lastLevelChange(history, plan.pattern.id);
  if (change && change.to === plan.level) return parseTimestamp(change.at);
  const ticks = entries.filter((entry) => entry.pattern === plan.pattern.id && entry.level);
  let since = Number.NaN;
  for (let index = ticks.length - 1; index >= 0 && ticks[index]!.level === plan.level; index--) since = parseTimestamp(ticks[index]!.run_id);
  return since;
}

export interface GatherOptions {
  now: number;
  since: number;
  audit: () => Promise<AuditResult>;
  /** The project's shared outcome lines (`ProjectStores.outcomes()`). */
  outcomes: OutcomeStore;
  /** The store's spend per tick (`ProjectStores.spendByTick`): files or Postgres price the same ticks the same. */
  spendByTick: SpendSource;
}

/** Where a report reads spend per tick: the project's store (`ProjectStores.spendByTick`). */
export type SpendSource = (query: { tickIds: readonly string[] }) => Promise<SpendByTick>;

/** Metrics and a promotion recommendation for each plan. */
export async function gatherMetrics(root: string, plans: readonly ExecutionPlan[], options: GatherOptions): Promise<LoopMetricsReport[]> {
  // Results only: a rehearsal's ticks and changes (`--backend mock`) count for nothing.
  const history = withoutRehearsals(await options.outcomes.history());
  const runLogs = new Map<string, RunLogEntry[]>();
  for (const plan of plans) {
    if (!runLogs.has(plan.files.runLog)) runLogs.set(plan.files.runLog, realRunLog((await readTextOrNull(join(root, plan.files.runLog))) ?? ''));
  }
  // The spend of the ticks these run logs name, in one read of the store.
  const tickIds = [...new Set([...runLogs.values()].flat().flatMap((entry) => (entry.tick_id ? [entry.tick_id] : [])))];
  const spend = await options.spendByTick({ tickIds });
  let audit: AuditResult | null = null;
  const reports: LoopMetricsReport[] = [];
  for (const plan of plans) {
    const entries = runLogs.get(plan.files.runLog)!;
    const id = plan.pattern.id;
    const metrics = computeLoopMetrics({ pattern: id, since: options.since, until: options.now, ticks: tickFacts(entries, id, spend), changes: history.changes, human: humanFacts(entries, id) });
    const since = levelSince(history, entries, plan);
    const days = Number.isNaN(since) ? 0 : Math.floor((options.now - since) / 86_400_000);
    audit ??= await options.audit();
    const policy = plan.autonomy ?? DEFAULT_AUTONOMY;
    const atLevel = changesSince(history.changes, id, Number.isNaN(since) ? 0 : since);
    const promotion = recommendPromotion(plan.level, policy, atLevel, days, audit.ok ? audit.audit : null, audit.ok ? undefined : audit.note);
    reports.push({ ...metrics, level: plan.level, autonomy: plan.autonomy ? 'on' : 'off', promotion });
  }
  return reports;
}
