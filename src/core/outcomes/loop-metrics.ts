/**
 * Metrics of one loop over a window, from its run-log ticks, its spend and
 * the outcomes of what it delivered. Pure: the runtime reads the files.
 *
 * Definitions (README "Metrics"): a change is **accepted** when it was merged
 * and not reverted; acceptance = accepted / proposed (open changes count as
 * proposed, not accepted); revert rate = reverted / (merged + reverted);
 * escalation rate and no-op rate are shares of ticks; cost per merged change
 * is everything the loop spent in the window divided by its accepted
 * changes — what one landed change really cost, failures included. The
 * median time to merge is over accepted changes (opened → merged).
 */
import { parseTimestamp, toIsoString } from '../time/utc-time.js';
import type { ChecksState, TrackedChange } from './outcome-record.js';

/** One tick as the run log and the spend journal remember it. */
export interface TickFact {
  tickId: string | null;
  at: number;
  /** TickResult kind (`noop`, `proposed`, …) or the run log outcome when the kind is unknown. */
  kind: string;
  tokens: number;
  /** Summed from the spend journal; null when the backend reported no cost for any call of the tick. */
  costUsd: number | null;
}

export interface HumanDecisionFact {
  at: number;
  decision: 'approved' | 'rejected';
}

export interface PerUnit {
  total: number;
  perTick: number | null;
  perProposed: number | null;
  perMerged: number | null;
}

export interface LoopMetrics {
  pattern: string;
  /** ISO bounds of the window. */
  since: string;
  until: string;
  ticks: { total: number; byKind: Record<string, number> };
  changes: { proposed: number; merged: number; closed: number; reverted: number; open: number; discarded: number };
  /** accepted / proposed; null with nothing proposed. */
  acceptanceRate: number | null;
  revertRate: number | null;
  escalationRate: number | null;
  noopRate: number | null;
  /** Share of no-op ticks that spent no tokens (ended by a probe before any model call). */
  zeroTokenNoopShare: number | null;
  tokens: PerUnit;
  /**
   * USD; `complete: false` when some ticks spent tokens without a known cost (then the sums are lower bounds). When
   * none of the ticks that spent tokens had a price, every unit is null: unknown, never $0.
   */
  costUsd: { [unit in keyof PerUnit]: number | null } & { complete: boolean };
  medianTimeToMergeMs: number | null;
  checks: Record<ChecksState, number>;
  human: { approved: number; rejected: number };
}

export interface MetricsInput {
  pattern: string;
  since: number;
  until: number;
  ticks: readonly TickFact[];
  changes: readonly TrackedChange[];
  human: readonly HumanDecisionFact[];
}

const ratio = (numerator: number, denominator: number): number | null => (denominator > 0 ? numerator / denominator : null);

/**
 * @example
 * ```ts
 * const metrics = computeLoopMetrics({ pattern: 'ci-sweeper', since, until, ticks, changes, human: [] });
 * metrics.acceptanceRate; // → 0.25 for 1 of 4 proposals merged and kept
 * ```
 */
export function computeLoopMetrics(input: MetricsInput): LoopMetrics {
  const inWindow = (at: number) => at >= input.since && at <= input.until;
  const ticks = input.ticks.filter((tick) => inWindow(tick.at));
  const changes = input.changes.filter((change) => change.proposal.pattern === input.pattern && inWindow(parseTimestamp(change.proposal.at)));
  const byKind: Record<string, number> = {};
  for (const tick of ticks) byKind[tick.kind] = (byKind[tick.kind] ?? 0) + 1;
  const count = (state: TrackedChange['state']) => changes.filter((change) => change.state === state).length;
  const merged = count('merged');
  const reverted = count('reverted');
  const proposed = changes.length;
  const noops = ticks.filter((tick) => tick.kind === 'noop' || tick.kind === 'no-op');
  const tokens = ticks.reduce((sum, tick) => sum + tick.tokens, 0);
  const costs = ticks.map((tick) => tick.costUsd).filter((cost): cost is number => cost !== null);
  const cost = costs.reduce((sum, value) => sum + value, 0);
  const complete = ticks.every((tick) => tick.costUsd !== null || tick.tokens === 0);
  const per = (total: number): PerUnit => ({ total, perTick: ratio(total, ticks.length), perProposed: ratio(total, proposed), perMerged: ratio(total, merged) });
  const checks: Record<ChecksState, number> = { passing: 0, failing: 0, pending: 0, none: 0 };
  for (const change of changes) if (change.observation?.checks) checks[change.observation.checks] += 1;
  const human = input.human.filter((decision) => inWindow(decision.at));
  return {
    pattern: input.pattern,
    since: toIsoString(input.since),
    until: toIsoString(input.until),
    ticks: { total: ticks.length, byKind },
    changes: { proposed, merged, closed: count('closed'), reverted, open: count('open'), discarded: count('discarded') },
    acceptanceRate: ratio(merged, proposed),
    revertRate: ratio(reverted, merged + reverted),
    escalationRate: ratio(ticks.filter((tick) => tick.kind === 'escalated').length, ticks.length),
    noopRate: ratio(noops.length, ticks.length),
    zeroTokenNoopShare: ratio(noops.filter((tick) => tick.tokens === 0).length, noops.length),
    tokens: per(tokens),
    costUsd: { ...(costs.length === 0 && !complete ? { total: null, perTick: null, perProposed: null, perMerged: null } : per(cost)), complete },
    medianTimeToMergeMs: median(changes.flatMap((change) => timeToMerge(change))),
    checks,
    human: { approved: human.filter((decision) => decision.decision === 'approved').length, rejected: human.filter((decision) => decision.decision === 'rejected').length },
  };
}

function timeToMerge(change: TrackedChange): number[] {
  const observation = change.observation;
  if (!observation?.mergedAt || change.state !== 'merged') return [];
  const opened = observation.openedAt ? parseTimestamp(observation.openedAt) : parseTimestamp(change.proposal.at);
  const mergedAt = parseTimestamp(observation.mergedAt);
  return Number.isNaN(opened) || Number.isNaN(mergedAt) ? [] : [Math.max(0, mergedAt - opened)];
}

/** The median (mean of the middle two for an even count), or null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const DURATION = /^([0-9]+)(h|d|w)$/;

/**
 * `--since`: `12h`, `30d`, `2w`, or an ISO date; returns the window's start.
 * Null for anything else.
 *
 * @example
 * ```ts
 * parseSince('30d', Date.UTC(2026, 10, 23)); // → Date.UTC(2026, 9, 24)
 * ```
 */
export function parseSince(text: string, now: number): number | null {
  const match = DURATION.exec(text.trim());
  if (match) return now - Number(match[1]) * { h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 'h' | 'd' | 'w'];
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(text.trim())) return null;
  const at = parseTimestamp(text.trim());
  return Number.isNaN(at) ? null : at;
}
