/**
 * The cheap check at the start of a tick (and after `outcomes sync`): sync
 * the loop's delivered changes, then let the pure policy decide whether its
 * level drops. No model call. A failed sync never blocks the tick — it is
 * reported, and unknown outcomes are not evidence either way.
 */
import { join } from 'node:path';
import { changesSince, decideDemotion, withoutRehearsals, type DemotionDecision } from '../../core/outcomes/index.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { Clock } from '../../core/ports/index.js';
import { readTextOrNull } from '../../adapters/fs/atomic-file.js';
import { redactorFor } from '../../composition/wiring.js';
import { levelSince, realRunLog } from './gather-metrics.js';
import { changeLevel, type LevelChangeReport } from './level-change.js';
import type { OutcomeStore } from '../../adapters/outcomes/outcome-store.js';
import { syncOutcomes, type SyncReport } from './sync-outcomes.js';

export interface AutonomyCheck {
  pattern: string;
  sync: SyncReport | null;
  /** Why the sync could not run (the tick goes on). */
  syncError?: string;
  decision: DemotionDecision | null;
  change: LevelChangeReport | null;
}

/** Syncs one loop's outcomes and applies its `autonomy:` policy to its configured level (plan without CLI overrides). */
export async function checkAutonomy(root: string, plan: ExecutionPlan, options: { clock: Clock; env: Record<string, string | undefined>; outcomes: OutcomeStore }): Promise<AutonomyCheck> {
  const check: AutonomyCheck = { pattern: plan.pattern.id, sync: null, decision: null, change: null };
  try {
    check.sync = await syncOutcomes(root, { clock: options.clock, env: options.env, outcomes: options.outcomes, patterns: [plan.pattern.id], remote: plan.delivery.remote });
  } catch (error) {
    check.syncError = redactorFor(options.env, root)(error instanceof Error ? error.message : String(error));
    return check;
  }
  if (!plan.autonomy) return check;
  // A rehearsal's changes (`--backend mock`) never demote or promote the real loop.
  const history = withoutRehearsals(await options.outcomes.history());
  const entries = realRunLog((await readTextOrNull(join(root, plan.files.runLog))) ?? '');
  const since = levelSince(history, entries, plan);
  const decision = decideDemotion(plan.level, plan.autonomy, changesSince(history.changes, plan.pattern.id, Number.isNaN(since) ? 0 : since));
  check.decision = decision;
  if (decision.kind !== 'keep') {
    check.change = await changeLevel(root, { plan, to: decision.to, reason: decision.reason, by: 'autonomy', now: options.clock.now(), redact: redactorFor(options.env, root), outcomes: options.outcomes });
  }
  return check;
}
