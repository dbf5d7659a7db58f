/**
 * Autonomy that follows results (pure). Between ticks the runtime asks
 * `decideDemotion`: a loop is demoted one level (or paused at L0) when a
 * change it delivered at its current level was reverted, or when acceptance
 * over its last N decided proposals at that level fell below the threshold.
 * Nothing here ever raises a level: `recommendPromotion` only says whether
 * the evidence supports one, and a human applies it with `promote`.
 *
 * Only evidence gathered since the loop's last level change counts, so one
 * bad week demotes once, not at every tick after it.
 */
import { LEVELS, type Level } from '../config/constants.js';
import type { AutonomyPolicy } from '../plan/execution-plan.js';
import { parseTimestamp } from '../time/utc-time.js';
import type { TrackedChange } from './outcome-record.js';

export type DemotionDecision =
  | { kind: 'keep'; detail: string }
  | { kind: 'demote' | 'pause'; from: Level; to: Level; reason: string };

/** The default policy (what `autonomy: {}` means), used by `metrics` for loops without one. */
export const DEFAULT_AUTONOMY: AutonomyPolicy = {
  window: 10,
  minAcceptance: 0.3,
  action: 'demote',
  onRevert: 'demote',
  promote: { minAcceptance: 0.7, minProposals: 10, minDays: 7, minAuditScore: 60 },
};

const lower = (level: Level): Level => LEVELS[Math.max(0, LEVELS.indexOf(level) - 1)]!;
const higher = (level: Level): Level | null => LEVELS[LEVELS.indexOf(level) + 1] ?? null;
const percent = (value: number) => `${Math.round(value * 100)}%`;

/** Changes this loop proposed at or after `since` (its last level change), oldest first. */
export function changesSince(changes: readonly TrackedChange[], pattern: string, since: number): TrackedChange[] {
  return changes
    .filter((change) => change.proposal.pattern === pattern && parseTimestamp(change.proposal.at) >= since)
    .sort((a, b) => parseTimestamp(a.proposal.at) - parseTimestamp(b.proposal.at));
}

/**
 * @example
 * ```ts
 * decideDemotion('L2', policy, changes);
 * // → { kind: 'demote', from: 'L2', to: 'L1', reason: 'acceptance 1/5 (20%) over the last 5 decided proposals is below 30%' }
 * ```
 */
export function decideDemotion(level: Level, policy: AutonomyPolicy, changes: readonly TrackedChange[]): DemotionDecision {
  if (level === 'L0') return { kind: 'keep', detail: 'L0 runs nothing; there is nothing to demote' };
  const act = (action: 'demote' | 'pause', reason: string): DemotionDecision =>
    action === 'pause' ? { kind: 'pause', from: level, to: 'L0', reason } : { kind: 'demote', from: level, to: lower(level), reason };
  const reverted = changes.find((change) => change.state === 'reverted');
  if (reverted && policy.onRevert !== 'ignore') {
    const by = reverted.observation?.revertedBy ? ` by ${reverted.observation.revertedBy.slice(0, 12)}` : '';
    return act(policy.onRevert, `change ${reverted.proposal.commit.slice(0, 12)} (${reverted.proposal.itemKey}) was reverted${by}`);
  }
  const decided = changes.filter((change) => change.state !== 'open');
  if (decided.length < policy.window) {
    return { kind: 'keep', detail: `${decided.length} of ${policy.window} decided proposals at ${level} so far; acceptance is judged at ${policy.window}` };
  }
  const recent = decided.slice(-policy.window);
  const accepted = recent.filter((change) => change.state === 'merged').length;
  const acceptance = accepted / recent.length;
  if (acceptance < policy.minAcceptance) {
    return act(policy.action, `acceptance ${accepted}/${recent.length} (${percent(acceptance)}) over the last ${recent.length} decided proposals is below ${percent(policy.minAcceptance)}`);
  }
  return { kind: 'keep', detail: `acceptance ${accepted}/${recent.length} (${percent(acceptance)}) is at or above ${percent(policy.minAcceptance)}` };
}

export interface AuditEvidence {
  score: number;
  level: string;
}

export interface PromotionEvidence {
  level: Level;
  /** Accepted / decided proposals at the current level. */
  acceptance: number | null;
  decided: number;
  proposed: number;
  reverted: number;
  daysAtLevel: number;
  /** The `loop-audit` readiness score of the repository, or null when loop-audit could not run. */
  audit: AuditEvidence | null;
  auditNote?: string;
}

export interface PromotionRecommendation {
  recommended: boolean;
  from: Level;
  to: Level | null;
  evidence: PromotionEvidence;
  /** What stands in the way (empty when recommended). */
  blockers: string[];
}

/**
 * Whether the evidence supports one level up. Every unknown blocks: no
 * audit score is not a passing audit score.
 */
export function recommendPromotion(level: Level, policy: AutonomyPolicy, changes: readonly TrackedChange[], daysAtLevel: number, audit: AuditEvidence | null, auditNote?: string): PromotionRecommendation {
  const decided = changes.filter((change) => change.state !== 'open');
  const accepted = decided.filter((change) => change.state === 'merged').length;
  const reverted = changes.filter((change) => change.state === 'reverted').length;
  const acceptance = decided.length > 0 ? accepted / decided.length : null;
  const to = higher(level);
  const rules = policy.promote;
  const blockers: string[] = [];
  if (!to) blockers.push(`${level} is the highest level`);
  if (level !== 'L0' && level !== 'L1') {
    if (decided.length < rules.minProposals) blockers.push(`${decided.length} decided proposals at ${level}; at least ${rules.minProposals} needed`);
    if (acceptance === null || acceptance < rules.minAcceptance) blockers.push(`acceptance ${acceptance === null ? 'unknown' : percent(acceptance)} is below ${percent(rules.minAcceptance)}`);
    if (reverted > 0) blockers.push(`${reverted} change(s) reverted at ${level}`);
  }
  if (daysAtLevel < rules.minDays) blockers.push(`${daysAtLevel} day(s) at ${level}; at least ${rules.minDays} needed`);
  if (!audit) blockers.push(`no loop-audit score${auditNote ? ` (${auditNote})` : ''}`);
  else if (audit.score < rules.minAuditScore) blockers.push(`loop-audit score ${audit.score} is below ${rules.minAuditScore}`);
  return {
    recommended: blockers.length === 0,
    from: level,
    to,
    evidence: { level, acceptance, decided: decided.length, proposed: changes.length, reverted, daysAtLevel, audit, ...(auditNote ? { auditNote } : {}) },
    blockers,
  };
}
