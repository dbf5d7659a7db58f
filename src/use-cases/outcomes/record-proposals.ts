/**
 * After ticks: every change a tick delivered (commit on a branch, pushed, or a
 * pull request) becomes a `proposal` line in outcomes.jsonl, so its fate can
 * be followed. Duplicates (the item was delivered before) are not new
 * proposals. Human approvals are recorded the same way by `approve`.
 */
import type { TickResult } from '../../core/engine/tick-result.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { ProposalLine } from '../../core/outcomes/index.js';
import { toIsoString } from '../../core/time/utc-time.js';
import { resolveBase } from '../../adapters/workspace/git-resolve-base.js';
import type { OutcomeStore } from '../../adapters/outcomes/outcome-store.js';

/** The proposal lines for delivered ticks (pure). */
export function proposalsFromTicks(ticks: readonly TickResult[], plan: ExecutionPlan, base: string | null): ProposalLine[] {
  const lines: ProposalLine[] = [];
  for (const tick of ticks) {
    if (tick.kind !== 'proposed' || tick.delivery?.kind === 'duplicate') continue;
    lines.push({
      type: 'proposal',
      at: toIsoString(tick.finishedAt),
      pattern: tick.patternId,
      tickId: tick.tickId,
      itemKey: tick.item.key,
      commit: tick.commit.sha,
      branch: tick.commit.branch,
      base,
      delivery: tick.delivery?.kind ?? 'local',
      ...(tick.delivery?.url ? { url: tick.delivery.url } : {}),
      level: plan.level,
      tokens: tick.tokens,
      source: 'tick',
      backend: plan.backend.name,
    });
  }
  return lines;
}

/**
 * Appends the proposals of `ticks`; the base is the plan's branch or the one HEAD is on now. Safe to repeat: a
 * tick's proposal already recorded (same tick id) is not recorded again. Returns how many were added.
 *
 * @example
 * ```ts
 * await recordProposals('/repo', plan, ticks, stores.outcomes()); // → 1 (a proposed tick); 0 when called again with the same ticks
 * ```
 */
export async function recordProposals(root: string, plan: ExecutionPlan, ticks: readonly TickResult[], outcomes: OutcomeStore): Promise<number> {
  if (!ticks.some((tick) => tick.kind === 'proposed')) return 0;
  const base = plan.delivery.baseBranch ?? (await resolveBase(root, null).catch(() => ({ branch: null }))).branch;
  return outcomes.append(proposalsFromTicks(ticks, plan, base), { oncePer: 'tick' });
}

/** Records a change a human approved from the inbox as a proposal of its loop (`source: human-approved`). */
export async function recordApproval(root: string, plan: ExecutionPlan, approved: { id: string; commit: string; branch: string; delivery: { kind: string; url?: string } | { ok: false } }, now: number, outcomes: OutcomeStore): Promise<void> {
  const kind = 'kind' in approved.delivery ? approved.delivery.kind : 'local';
  const url = 'kind' in approved.delivery ? approved.delivery.url : undefined;
  if (kind === 'duplicate' || !/^[0-9a-f]{7,64}$/.test(approved.commit)) return;
  const base = plan.delivery.baseBranch ?? (await resolveBase(root, null).catch(() => ({ branch: null }))).branch;
  await outcomes.append([
    {
      type: 'proposal',
      at: toIsoString(now),
      pattern: plan.pattern.id,
      tickId: null,
      itemKey: approved.id,
      commit: approved.commit,
      branch: approved.branch,
      base,
      delivery: kind === 'pushed' || kind === 'pull-request' || kind === 'merged' ? kind : 'local',
      ...(url ? { url } : {}),
      level: plan.level,
      tokens: 0,
      source: 'human-approved',
    },
  ]);
}
