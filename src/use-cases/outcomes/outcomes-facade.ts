/**
 * What the runtime facade's `outcomesSync`, `metrics`, `promote` and the
 * tick-start autonomy check do, over a loaded project. Returns data; the CLI
 * renders it.
 */
import type { Diagnostic } from '../../core/config/diagnostics.js';
import { LEVELS, type Level } from '../../core/config/constants.js';
import { LoopRuntimeError } from '../../core/errors.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { PromotionRecommendation } from '../../core/outcomes/index.js';
import type { Clock } from '../../core/ports/index.js';
import type { LoadedProject } from '../../project/load-project.js';
import { redactorFor } from '../../composition/wiring.js';
import { checkAutonomy, type AutonomyCheck } from './autonomy-check.js';
import { gatherMetrics, type LoopMetricsReport, type SpendSource } from './gather-metrics.js';
import { changeLevel, type LevelChangeReport } from './level-change.js';
import { runLoopAudit } from '../../adapters/outcomes/loop-audit.js';
import { countOutcomes } from '../../adapters/telemetry/telemetry.js';
import type { OutcomeStore } from '../../adapters/outcomes/outcome-store.js';

export interface FacadeOptions {
  clock: Clock;
  env: Record<string, string | undefined>;
  /** The project's shared outcome lines (`ProjectStores.outcomes()`). */
  outcomes: OutcomeStore;
  /** The same store's spend per tick (`ProjectStores.spendByTick`), which `metrics` and `promote` price. */
  spendByTick: SpendSource;
}

export interface OutcomesSyncResult {
  at: string;
  checks: AutonomyCheck[];
}

export interface MetricsResult {
  since: string;
  until: string;
  loops: LoopMetricsReport[];
}

export type PromoteResult =
  | { status: 'needs-confirmation'; pattern: string; recommendation: PromotionRecommendation }
  | { status: 'promoted'; pattern: string; recommendation: PromotionRecommendation; change: LevelChangeReport };

/** Configured plans (as written: no CLI level), all or one. Throws for an unknown id. */
export async function configuredPlans(project: LoadedProject, id?: string): Promise<{ plans: ExecutionPlan[]; issues: Diagnostic[] }> {
  const { resolvePlan } = await import('../../project/load-project.js');
  const ids = id ? [id] : project.configuredLoops;
  const plans: ExecutionPlan[] = [];
  const issues: Diagnostic[] = [];
  for (const loop of ids) {
    const resolved = await resolvePlan(project, loop);
    if (resolved.ok) plans.push(resolved.plan);
    else issues.push(...resolved.issues);
  }
  return { plans, issues };
}

/** `outcomes sync`: checks every loop's delivered changes and applies each loop's autonomy policy. */
export async function outcomesSync(project: LoadedProject, plans: readonly ExecutionPlan[], options: FacadeOptions): Promise<OutcomesSyncResult> {
  const checks: AutonomyCheck[] = [];
  for (const plan of plans) {
    const check = await checkAutonomy(project.root, plan, options);
    if (check.sync) countOutcomes(check.sync);
    checks.push(check);
  }
  return { at: new Date(options.clock.now()).toISOString(), checks };
}

/** `metrics`: per loop over the window [since, now]. */
export async function loopMetrics(project: LoadedProject, plans: readonly ExecutionPlan[], since: number, options: FacadeOptions & { audit?: boolean }): Promise<MetricsResult> {
  const now = options.clock.now();
  const audit = options.audit === false ? async () => ({ ok: false as const, note: 'loop-audit not run (--no-audit)' }) : () => runLoopAudit(project.root, options.env);
  const loops = await gatherMetrics(project.root, plans, { now, since, audit, outcomes: options.outcomes, spendByTick: options.spendByTick });
  return { since: new Date(since).toISOString(), until: new Date(now).toISOString(), loops };
}

/** `promote <id>`: one level up, only with `yes` (the human has seen the evidence). */
export async function promoteLoop(project: LoadedProject, plan: ExecutionPlan, options: FacadeOptions & { yes: boolean }): Promise<PromoteResult> {
  const [report] = await gatherMetrics(project.root, [plan], { now: options.clock.now(), since: 0, audit: () => runLoopAudit(project.root, options.env), outcomes: options.outcomes, spendByTick: options.spendByTick });
  const recommendation = report!.promotion;
  const to: Level | null = LEVELS[LEVELS.indexOf(plan.level) + 1] ?? null;
  if (!to) throw new LoopRuntimeError('USAGE', `${plan.pattern.id} is already at ${plan.level}, the highest level.`, { fix: 'nothing to promote.' });
  if (!options.yes) return { status: 'needs-confirmation', pattern: plan.pattern.id, recommendation };
  const evidence = recommendation.evidence;
  const facts = `acceptance ${evidence.acceptance === null ? 'unknown' : `${Math.round(evidence.acceptance * 100)}%`} over ${evidence.decided} decided of ${evidence.proposed} proposed, ${evidence.daysAtLevel} day(s) at ${plan.level}, loop-audit ${evidence.audit ? evidence.audit.score : 'not run'}`;
  const reason = recommendation.recommended ? `recommended (${facts})` : `against the recommendation — ${recommendation.blockers.join('; ')} (${facts})`;
  const change = await changeLevel(project.root, { plan, to, reason, by: 'human', now: options.clock.now(), redact: redactorFor(options.env, project.root), outcomes: options.outcomes });
  return { status: 'promoted', pattern: plan.pattern.id, recommendation, change };
}
