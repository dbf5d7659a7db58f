/**
 * `loop-runtime run --due` (and `run <id> --due`): decide which configured
 * loops are due by their cadence and past ticks, then tick each due loop
 * once under its lease. A loop whose lease is held (a tick already running)
 * is skipped and reported, never waited for.
 */
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import type { Level } from '../../core/config/schemas.js';
import type { TickResult } from '../../core/engine/tick-result.js';
import { runLogOutcome } from '../../core/engine/tick-result.js';
import { ExitCode, isLoopRuntimeError } from '../../core/errors.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { DueDecision } from '../../core/schedule/decide-due.js';
import type { CliIO, CommandOutput } from '../command.js';
import type { LoadedProject } from '../../project/load-project.js';
import { createRedactor } from '../../core/security/redact-secrets.js';
import { secretValuesFromEnv } from '../../core/security/scrub-env.js';
import { exitCodeForTicks, type RunSummary } from './run.js';

export type DueAction = 'ticked' | 'not-due' | 'lease-held' | 'error';

export interface DueLoopReport {
  id: string;
  due: boolean;
  reason: DueDecision['reason'];
  detail: string;
  intervalMs: number;
  nextAt: string;
  action: DueAction;
  exitCode: number;
  /** The tick, when one ran. */
  tick?: TickResult;
  /** Why no tick ran although the loop was due (lease held, error). */
  message?: string;
}

export interface DueRunSummary {
  mode: 'due';
  at: string;
  dryRun: boolean;
  decisions: DueLoopReport[];
  exitCode: number;
}

export interface DueRunOptions {
  id?: string;
  level?: Level;
  backendName?: string;
  dryRun: boolean;
  now?: number;
  allowUnsandboxed?: boolean;
}

/** Most serious first: a failed tick, a halt, a held lease, then success. */
export function exitCodeForDue(reports: readonly DueLoopReport[]): number {
  for (const code of [ExitCode.tickFailed, ExitCode.halted, ExitCode.leaseHeld]) {
    if (reports.some((report) => report.exitCode === code)) return code;
  }
  return ExitCode.ok;
}

/**
 * Evaluates the due loops and ticks them.
 *
 * @example
 * ```ts
 * const output = await runDue(io, { dryRun: false }); // output.json.decisions[0].action → 'ticked' | 'not-due' | …
 * ```
 */
export async function runDue(io: CliIO, options: DueRunOptions): Promise<CommandOutput> {
  const { loadProject } = await import('../../project/load-project.js');
  const loaded = await loadProject(io.cwd);
  if (!loaded.ok) {
    return { exitCode: ExitCode.configError, json: { ok: false, issues: loaded.issues }, text: loaded.issues.map(formatDiagnostic).join('\n') };
  }
  const project = loaded.project;
  const { evaluateDueLoops } = await import('../../runtime/due-loops.js');
  const now = options.now ?? Date.now();
  const evaluation = await evaluateDueLoops(project, now, {
    ...(options.id ? { loops: [options.id] } : {}),
    ...(options.level ? { level: options.level } : {}),
    ...(options.backendName ? { backend: options.backendName } : {}),
  });
  if (evaluation.issues.length > 0 && evaluation.decisions.length === 0) {
    return { exitCode: ExitCode.configError, json: { ok: false, issues: evaluation.issues }, text: evaluation.issues.map(formatDiagnostic).join('\n') };
  }
  const reports: DueLoopReport[] = [];
  for (const decision of evaluation.decisions) {
    const base = {
      id: decision.id,
      due: decision.due,
      reason: decision.reason,
      detail: decision.detail,
      intervalMs: decision.intervalMs,
      nextAt: new Date(decision.nextAt).toISOString(),
    };
    if (!decision.due) {
      io.progress(`${decision.id}: not due — ${decision.detail}`);
      reports.push({ ...base, action: 'not-due', exitCode: ExitCode.ok });
      continue;
    }
    io.progress(`${decision.id}: due (${decision.reason}) — ${decision.detail}`);
    const plan = evaluation.plans.get(decision.id)!;
    try {
      const summary = await tickUnderLease(project, plan, io, options.dryRun, 1, { allowUnsandboxed: options.allowUnsandboxed ?? false });
      reports.push({ ...base, action: 'ticked', exitCode: summary.exitCode, tick: summary.ticks[0]! });
    } catch (error) {
      const message = createRedactor(secretValuesFromEnv(io.env))(error instanceof Error ? error.message : String(error));
      const held = isLoopRuntimeError(error) && error.code === 'LEASE_HELD';
      io.progress(`${decision.id}: ${held ? 'skipped, lease held' : 'error'} — ${message}`);
      reports.push({ ...base, action: held ? 'lease-held' : 'error', exitCode: held ? ExitCode.leaseHeld : ExitCode.tickFailed, message });
    }
  }
  const summary: DueRunSummary = { mode: 'due', at: new Date(now).toISOString(), dryRun: options.dryRun, decisions: reports, exitCode: exitCodeForDue(reports) };
  const stderr = evaluation.issues.length > 0 ? evaluation.issues.map(formatDiagnostic).join('\n') : undefined;
  return { exitCode: summary.exitCode, json: summary, text: renderDue(summary), ...(stderr ? { stderr } : {}) };
}

/**
 * Runs `count` ticks of one loop under its lease (no lease for --dry-run,
 * which writes nothing). Throws `LEASE_HELD` when another tick holds it.
 */
export async function tickUnderLease(
  project: LoadedProject,
  plan: ExecutionPlan,
  io: CliIO,
  dryRun: boolean,
  count: number,
  runtimeOptions: { allowUnsandboxed?: boolean } = {},
): Promise<RunSummary> {
  let lease: import('../../runtime/lease.js').Lease | null = null;
  if (!dryRun) {
    const { FileLeases, LEASE_MARGIN_MS } = await import('../../runtime/lease.js');
    lease = await new FileLeases({ root: project.root }).acquireLoopLease(plan.pattern.id, { staleMs: plan.timeoutMs + LEASE_MARGIN_MS });
  }
  let ticks: TickResult[] = [];
  // What the CLI prints (summary, --json, progress lines) is redacted like every file the runtime writes:
  // tick results carry command output, reasons and agent summaries.
  const redact = createRedactor(secretValuesFromEnv(io.env));
  const progress = (line: string) => io.progress(redact(line));
  try {
    const { createLoopRuntime } = await import('../../runtime/create-runtime.js');
    const notes: string[] = [];
    const runtime = await createLoopRuntime(project, plan, {
      dryRun,
      env: io.env,
      allowUnsandboxed: runtimeOptions.allowUnsandboxed ?? false,
      log: (line) => {
        notes.push(line);
        progress(line);
      },
      observer: (event) => {
        if (event.type === 'phase-end') progress(`  ${event.phase}: ${event.note ?? ''}`);
        else if (event.type === 'tick-start') progress(`${plan.pattern.id}: tick ${event.tickId} started`);
      },
    });
    try {
      ticks = await runtime.engine.ticks(count);
    } finally {
      await runtime.close();
    }
    const last = ticks[ticks.length - 1]!;
    const summary: RunSummary = {
      pattern: { id: plan.pattern.id, name: plan.pattern.name },
      level: plan.level,
      backend: runtime.ports.backend.name,
      dryRun,
      ticks,
      budget: last.budget,
      notes: [...runtime.notes, ...notes],
      exitCode: exitCodeForTicks(ticks),
    };
    return redactStrings(summary, redact);
  } finally {
    const last = ticks[ticks.length - 1];
    await lease?.release(last ? { outcome: runLogOutcome(last), tickKind: last.kind, tickId: last.tickId, startedAt: last.startedAt } : { outcome: 'no-op', tickKind: 'error' });
  }
}

/** A deep copy of plain JSON data with every string value redacted. */
function redactStrings<T>(value: T, redact: (text: string) => string): T {
  return JSON.parse(JSON.stringify(value, (_key, entry: unknown) => (typeof entry === 'string' ? redact(entry) : entry))) as T;
}

function renderDue(summary: DueRunSummary): string {
  if (summary.decisions.length === 0) return 'No configured loops. Run `loop-runtime list` to see the catalogue.';
  const width = Math.max(...summary.decisions.map((report) => report.id.length));
  const lines = summary.decisions.map((report) => {
    const head = `${report.id.padEnd(width)}  `;
    switch (report.action) {
      case 'not-due':
        return `${head}not due   ${report.detail}`;
      case 'ticked':
        return `${head}ticked    ${report.tick?.kind ?? '?'} (${report.detail})${report.tick && 'summary' in report.tick ? ` — ${report.tick.summary}` : ''}`;
      case 'lease-held':
        return `${head}skipped   ${report.message ?? 'lease held'}`;
      case 'error':
        return `${head}error     ${report.message ?? ''}`;
    }
  });
  const ticked = summary.decisions.filter((report) => report.action === 'ticked').length;
  return [`${ticked} of ${summary.decisions.length} loop(s) ticked${summary.dryRun ? ' (dry run)' : ''}:`, ...lines].join('\n');
}
