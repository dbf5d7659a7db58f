/**
 * `run --due`'s decision: every configured loop's cadence against its past
 * ticks, read from the run log(s) (`loop-run-log.md`, ours and other tools'
 * lines) and `.loop-runtime/lease-history.jsonl` (our ticks, halted ones
 * included). Both are read backwards from the end and only as far back as
 * can still change a decision, so the cost does not grow with old history.
 */
import { resolve } from 'node:path';
import type { Diagnostic } from '../core/config/diagnostics.js';
import type { Level } from '../core/config/schemas.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import { decideDue, type DecideDueOptions, type DueDecision } from '../core/schedule/decide-due.js';
import { historyHorizonMs, summarizeRuns, type PastTick } from '../core/schedule/run-history.js';
import { parseRunLogLine, RUN_LOG_MARKER } from '../core/state/run-log.js';
import { readLinesBackward, type LedgerReadStats } from '../adapters/budget-ledger/file-budget-ledger.js';
import { resolvePlan, type LoadedProject } from '../project/load-project.js';
import type { ProjectStores } from '../composition/stores/project-stores.js';

export interface DueEvaluation {
  /** One decision per evaluated loop, in configured order. */
  decisions: DueDecision[];
  plans: Map<string, ExecutionPlan>;
  /** Loops whose plan could not be built (skipped, reported). */
  issues: Diagnostic[];
}

export interface EvaluateDueOptions extends DecideDueOptions {
  /** Only these loops (default: every configured loop). */
  loops?: readonly string[];
  level?: Level;
  backend?: string;
  dir?: string;
  stats?: LedgerReadStats;
  /** The project's stores: the fleet's run history adds ticks other machines ran. */
  stores?: Pick<ProjectStores, 'pastTicks'>;
}

/**
 * Decides which loops are due at `now`.
 *
 * @example
 * ```ts
 * const { decisions } = await evaluateDueLoops(project, Date.now());
 * decisions.filter((decision) => decision.due).map((decision) => decision.id); // e.g. ['ci-sweeper']
 * ```
 */
export async function evaluateDueLoops(project: LoadedProject, now: number, options: EvaluateDueOptions = {}): Promise<DueEvaluation> {
  const ids = options.loops ?? project.configuredLoops;
  const plans = new Map<string, ExecutionPlan>();
  const issues: Diagnostic[] = [];
  for (const id of ids) {
    const resolved = await resolvePlan(project, id, { ...(options.level ? { level: options.level } : {}), ...(options.backend ? { backend: options.backend } : {}) });
    if (resolved.ok) plans.set(id, resolved.plan);
    else issues.push(...resolved.issues);
  }
  const ticks = await readPastTicks(project.root, [...plans.values()], now, options);
  if (options.stores && plans.size > 0) {
    const since = Math.min(...[...plans.values()].map((plan) => now - historyHorizonMs(plan.cadence)));
    ticks.push(...(await options.stores.pastTicks([...plans.keys()], since)));
  }
  const summaries = summarizeRuns(ticks);
  const decisions = decideDue(
    [...plans.values()].map((plan) => {
      const summary = summaries.get(plan.pattern.id);
      return {
        id: plan.pattern.id,
        cadence: { minIntervalMs: plan.cadence.minIntervalMs, maxIntervalMs: plan.cadence.maxIntervalMs },
        ...(summary?.lastRun ? { lastRun: summary.lastRun } : {}),
        consecutiveNoops: summary?.consecutiveNoops ?? 0,
      };
    }),
    now,
    options,
  );
  return { decisions, plans, issues };
}

/**
 * The past ticks of `plans`' loops within their history horizon, from their
 * run logs and the lease history.
 */
export async function readPastTicks(root: string, plans: readonly ExecutionPlan[], now: number, options: { dir?: string; stats?: LedgerReadStats } = {}): Promise<PastTick[]> {
  const ticks: PastTick[] = [];
  const stats = options.stats ?? { bytesRead: 0 };
  const loops = new Set(plans.map((plan) => plan.pattern.id));
  const horizonOf = (plan: ExecutionPlan) => now - historyHorizonMs(plan.cadence);
  const oldest = Math.min(...plans.map(horizonOf), now);

  const byRunLog = new Map<string, ExecutionPlan[]>();
  for (const plan of plans) byRunLog.set(plan.files.runLog, [...(byRunLog.get(plan.files.runLog) ?? []), plan]);
  for (const [runLog, group] of byRunLog) {
    const ids = new Set(group.map((plan) => plan.pattern.id));
    const cutoff = Math.min(...group.map(horizonOf));
    await readLinesBackward(
      resolve(root, runLog),
      (line) => {
        if (line.trim() === RUN_LOG_MARKER) return 'stop';
        const entry = parseRunLogLine(line);
        if (!entry) return 'continue';
        const at = Date.parse(entry.run_id);
        if (Number.isNaN(at)) return 'continue';
        if (at < cutoff) return 'stop';
        // A human's `resume` is not a tick (a halted line is: that tick ran and halted).
        if (entry.pattern && ids.has(entry.pattern) && entry.kind !== 'resumed') {
          // Older runtimes logged failed ticks as no-ops with kind "failed": a failure is never a quiet tick.
          ticks.push({ loop: entry.pattern, at, outcome: entry.kind === 'failed' ? 'failed' : (entry.outcome ?? 'no-op'), ...(entry.tick_id ? { tickId: entry.tick_id } : {}) });
        }
        return 'continue';
      },
      stats,
    );
  }

  await readLinesBackward(
    resolve(root, options.dir ?? '.loop-runtime', 'lease-history.jsonl'),
    (line) => {
      const entry = parseLeaseRelease(line);
      if (!entry) return 'continue';
      if (entry.releasedAt < oldest) return 'stop';
      if (loops.has(entry.tick.loop)) ticks.push(entry.tick);
      return 'continue';
    },
    stats,
  );
  return ticks;
}

/** A loop lease's release line as a past tick (acquire/recover lines and item leases are not ticks). */
function parseLeaseRelease(line: string): { tick: PastTick; releasedAt: number } | null {
  if (!line.startsWith('{')) return null;
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (value.event !== 'release' || value.kind !== 'loop' || typeof value.loop !== 'string' || typeof value.outcome !== 'string') return null;
    if (typeof value.at !== 'number') return null;
    const at = typeof value.startedAt === 'number' ? value.startedAt : value.at;
    const failed = value.tickKind === 'failed' || value.tickKind === 'error';
    return { releasedAt: value.at, tick: { loop: value.loop, at, outcome: failed ? 'failed' : value.outcome, ...(typeof value.tickId === 'string' ? { tickId: value.tickId } : {}) } };
  } catch {
    return null;
  }
}
