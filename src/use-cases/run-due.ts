/**
 * `run --due`: decides which configured loops are due by their cadence and past ticks, and ticks each due loop once
 * the way `run <id>` does (run.ts, loaded only when a loop is due: a cron run with nothing due loads no engine).
 */
import type { Level } from '../core/config/schemas.js';
import type { Diagnostic } from '../core/config/diagnostics.js';
import { ExitCode, exitCodeFor, isLoopRuntimeError, mostSeriousExitCode } from '../core/errors.js';
import type { LoadedProject } from '../project/load-project.js';
import { redactorFor } from '../composition/wiring.js';
import type { DueLoopReport, DueRunSummary, TickOptions } from './run.js';

/** Most serious first: needs a human, config error, a failed tick, a halt, a held lease, then success. */
export function exitCodeForDue(reports: readonly DueLoopReport[]): number {
  return mostSeriousExitCode(reports.map((report) => report.exitCode));
}

export interface DueSelection {
  id?: string;
  level?: Level;
  backendName?: string;
}

/**
 * Decides which configured loops are due by their cadence and past ticks,
 * then ticks each due loop once under its lease. A held lease is skipped and
 * reported, never waited for.
 */
export async function tickDueLoops(project: LoadedProject, selection: DueSelection, options: TickOptions): Promise<{ ok: true; summary: DueRunSummary; issues: Diagnostic[] } | { ok: false; issues: Diagnostic[] }> {
  const { evaluateDueLoops } = await import('./due-loops.js');
  const now = options.clock.now();
  const evaluation = await evaluateDueLoops(project, now, {
    ...(options.stores ? { stores: options.stores } : {}),
    ...(selection.id ? { loops: [selection.id] } : {}),
    ...(selection.level ? { level: selection.level } : {}),
    ...(selection.backendName ? { backend: selection.backendName } : {}),
  });
  if (evaluation.issues.length > 0 && evaluation.decisions.length === 0) return { ok: false, issues: evaluation.issues };
  const redact = redactorFor(options.env, project.root);
  const progress = (line: string) => options.progress?.(redact(line));
  const reports: DueLoopReport[] = [];
  for (const decision of evaluation.decisions) {
    // Ctrl-C: the loop that was ticking has stopped cleanly; the rest wait for the next run.
    if (options.signal?.aborted) break;
    const base = { id: decision.id, due: decision.due, reason: decision.reason, detail: decision.detail, intervalMs: decision.intervalMs, nextAt: new Date(decision.nextAt).toISOString() };
    if (!decision.due) {
      progress(`${decision.id}: not due — ${decision.detail}`);
      reports.push({ ...base, action: 'not-due', exitCode: ExitCode.ok });
      continue;
    }
    progress(`${decision.id}: due (${decision.reason}) — ${decision.detail}`);
    const plan = evaluation.plans.get(decision.id)!;
    try {
      const { tickUnderLease } = await import('./run.js');
      const summary = await tickUnderLease(project, plan, 1, options);
      reports.push({
        ...base, action: 'ticked', exitCode: summary.exitCode, tick: summary.ticks[0]!,
        ...(summary.priceSource !== undefined ? { priceSource: summary.priceSource } : {}), ...(summary.rehearsal ? { rehearsal: true } : {}),
      });
    } catch (error) {
      const message = redact(error instanceof Error ? error.message : String(error));
      const held = isLoopRuntimeError(error) && error.code === 'LEASE_HELD';
      progress(`${decision.id}: ${held ? 'skipped, lease held' : 'error'} — ${message}`);
      reports.push({ ...base, action: held ? 'lease-held' : 'error', exitCode: held ? ExitCode.leaseHeld : exitCodeFor(error), message });
    }
  }
  const priced = reports.filter((report) => report.priceSource !== undefined);
  const costUsd = priced.length > 0 ? (await import('./outcomes/tick-cost.js')).totalCost(priced.map((report) => report.tick?.costUsd ?? null)) : undefined;
  const summary: DueRunSummary = { mode: 'due', at: new Date(now).toISOString(), dryRun: options.dryRun, decisions: reports, ...(costUsd !== undefined ? { costUsd } : {}), exitCode: exitCodeForDue(reports) };
  return { ok: true, summary, issues: evaluation.issues };
}
