/**
 * Turns `loop-runtime run … --json` output into a GitHub job summary
 * (markdown for `$GITHUB_STEP_SUMMARY`) and workflow-command annotations,
 * plus the exit code the job should end with. Pure: JSON in, text out.
 *
 * The rule (the same one the systemd unit and the cron wrapper apply to the
 * process exit code, see `isFailingExitCode`):
 * - the job **fails** (`::error`) when a loop could not run or failed: a
 *   failed tick (1), a config error (3), a halt a human must clear — backend
 *   missing, logged out or out of quota, circuit breaker open (5) — no
 *   sandbox (5), an internal error, or no JSON at all;
 * - it **passes with a `::warning`** and a row in the summary for outcomes
 *   that are the loop working as configured: budget exhausted, L0, kill
 *   switch (2), another tick holding the lease (4), an escalation;
 * - it passes quietly otherwise.
 * The tick's JSON decides, not only its exit code: an older CLI that exits 2
 * for a stopped backend still fails the job.
 */
import { ExitCode, exitCodeForErrorCode, exitCodeForHalt, isFailingExitCode, mostSeriousExitCode } from '../core/errors.js';
import { formatCount } from '../core/text/format-count.js';
import { renderMetricsSection, type CiMetrics } from './ci-metrics.js';

export interface CiSummary {
  markdown: string;
  annotations: string[];
  /** 0 when nothing failed (notices included); otherwise the most serious failing code (1, 3, 5). */
  exitCode: number;
}

interface TickLike {
  kind?: string;
  patternId?: string;
  tickId?: string;
  tokens?: number;
  summary?: string;
  message?: string;
  reason?: string;
  source?: string;
  item?: { key?: string; title?: string };
  reasons?: string[];
  commit?: { sha?: string; branch?: string };
  delivery?: { kind?: string; url?: string } | null;
  phase?: string;
  /** A report where triage asked to act: why it did not (an open proposal, the level, the budget). */
  degradedReason?: string;
}

interface Row {
  loop: string;
  action: string;
  tick: TickLike | null;
  detail: string;
  exitCode: number;
}

type Level = 'error' | 'warning' | null;

/** Escapes a workflow-command message (GitHub's rules: %, CR, LF). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim().slice(0, 300);
}

function rowsOf(output: Record<string, unknown>): Row[] {
  if (Array.isArray(output.decisions)) {
    return (output.decisions as Array<Record<string, unknown>>).map((decision) => ({
      loop: String(decision.id ?? '?'),
      action: String(decision.action ?? '?'),
      tick: (decision.tick as TickLike | undefined) ?? null,
      detail: String(decision.message ?? decision.detail ?? ''),
      exitCode: typeof decision.exitCode === 'number' ? decision.exitCode : ExitCode.ok,
    }));
  }
  if (Array.isArray(output.ticks)) {
    const pattern = (output.pattern as { id?: string } | undefined)?.id ?? '?';
    return (output.ticks as TickLike[]).map((tick) => ({ loop: pattern, action: 'ticked', tick, detail: '', exitCode: ExitCode.ok }));
  }
  return [];
}

/** The loops a `run --json` output ticked or considered (`pattern.id`, or each `--due` decision's id). */
export function loopsInRunOutput(output: unknown): string[] {
  if (typeof output !== 'object' || output === null) return [];
  return [...new Set(rowsOf(output as Record<string, unknown>).map((row) => row.loop).filter((loop) => loop !== '?'))];
}

function describe(tick: TickLike): string {
  switch (tick.kind) {
    case 'proposed':
      return `proposed ${tick.item?.key ?? ''}${tick.delivery?.url ? ` — ${tick.delivery.url}` : tick.commit?.branch ? ` on ${tick.commit.branch}` : ''}`;
    case 'escalated':
      return `escalated ${tick.item?.key ?? ''}: ${tick.reason ?? ''}`;
    case 'rejected':
      return `rejected ${tick.item?.key ?? ''}: ${(tick.reasons ?? []).join('; ')}`;
    case 'failed':
      return `failed in ${tick.phase ?? '?'}: ${tick.message ?? ''}`;
    case 'halted':
      return exitCodeForHalt(tick.reason ?? '') === ExitCode.needsHuman
        ? `could not run (${tick.reason ?? 'halted'}): ${tick.message ?? ''}`
        : `halted (${tick.reason ?? '?'}): ${tick.message ?? ''}`;
    case 'paused':
      return `paused by ${tick.source ?? 'kill switch'}`;
    case 'report':
      // Why a tick that found work did not act: an event for an item whose proposal is open says so here.
      return tick.degradedReason ? `${tick.summary ?? ''} Not acted on: ${tick.degradedReason}.`.trim() : (tick.summary ?? 'report');
    default:
      return tick.summary ?? tick.kind ?? '';
  }
}

/** What one row means for the job: its exit code and annotation level. */
function classify(row: Row): { code: number; level: Level } {
  if (row.action === 'lease-held') return { code: ExitCode.leaseHeld, level: 'warning' };
  if (row.action === 'error') {
    // The code of the error that stopped the tick (exitCodeFor); an error reported with 0 is still a failure.
    const code = row.exitCode === ExitCode.ok ? ExitCode.tickFailed : row.exitCode;
    return { code, level: isFailingExitCode(code) ? 'error' : 'warning' };
  }
  const tick = row.tick;
  if (!tick) return { code: isFailingExitCode(row.exitCode) ? row.exitCode : ExitCode.ok, level: isFailingExitCode(row.exitCode) ? 'error' : null };
  switch (tick.kind) {
    case 'failed':
      return { code: ExitCode.tickFailed, level: 'error' };
    case 'halted': {
      const code = exitCodeForHalt(tick.reason ?? '');
      return { code, level: isFailingExitCode(code) ? 'error' : 'warning' };
    }
    case 'paused':
      return { code: ExitCode.halted, level: 'warning' };
    case 'escalated':
      return { code: ExitCode.ok, level: 'warning' };
    default:
      return { code: ExitCode.ok, level: null };
  }
}

function verdict(code: number, notices: number): string {
  if (isFailingExitCode(code)) return `**Result: failed (exit ${code})** — a loop could not run or its tick failed; a human must look. See the rows and annotations.`;
  if (notices > 0) return '**Result: ok, with notices** — halted on purpose, paused, escalated or skipped (budget, L0, kill switch, lease); not a failure.';
  return '**Result: ok**';
}

function jobCode(derived: number, given: number | undefined): number {
  const code = mostSeriousExitCode(given === undefined ? [derived] : [derived, given]);
  return isFailingExitCode(code) ? code : ExitCode.ok;
}

/**
 * @example
 * ```ts
 * const summary = renderCiSummary(JSON.parse(text), { exitCode: 5 });
 * summary.annotations[0]; // → "::error title=loop-runtime ci-sweeper::could not run (backend-stopped): …"
 * summary.exitCode;       // → 5
 * ```
 * With `metrics` (from `metrics`, for the loops of this run) a section of
 * per-loop acceptance, revert rate, tokens and cost per merged change follows the table.
 */
export function renderCiSummary(output: unknown, options: { exitCode?: number; metrics?: CiMetrics } = {}): CiSummary {
  const annotations: string[] = [];
  const given = options.exitCode;
  if (typeof output !== 'object' || output === null) {
    annotations.push('::error title=loop-runtime::no JSON output from the tick (see the step log)');
    const code = given !== undefined && isFailingExitCode(given) ? given : ExitCode.tickFailed;
    return { markdown: `### loop-runtime\n\n${verdict(code, 0)}\n\nThe tick produced no JSON output; see the step log.\n`, annotations, exitCode: code };
  }
  const record = output as Record<string, unknown>;
  const error = record.error as { code?: string; message?: string; issues?: unknown } | undefined;
  // A configuration error carries its diagnostics inside the one error shape: annotate each at its file and line.
  if (error && Array.isArray(error.issues)) return configSummary(error.issues, annotations);
  if (error) {
    const code = exitCodeForErrorCode(error.code ?? 'INTERNAL');
    const final = jobCode(code, given);
    annotations.push(`::${isFailingExitCode(code) ? 'error' : 'warning'} title=${escapeProperty(`loop-runtime ${error.code ?? 'error'}`)}::${escapeData(error.message ?? '')}`);
    return { markdown: `### loop-runtime\n\n${verdict(final, 1)}\n\n**${error.code ?? 'error'}**: ${cell(error.message ?? '')}\n`, annotations, exitCode: final };
  }
  if (Array.isArray(record.issues)) return configSummary(record.issues, annotations);
  const rows = rowsOf(record);
  const table = ['| loop | outcome | tokens | detail |', '|---|---|---|---|'];
  const codes: number[] = [];
  let notices = 0;
  for (const row of rows) {
    const tick = row.tick;
    const outcome = tick ? (tick.kind ?? row.action) : row.action;
    const detail = tick ? describe(tick) : row.action === 'lease-held' ? `skipped: ${row.detail}` : row.detail;
    const { code, level } = classify(row);
    codes.push(code);
    if (level === 'warning') notices += 1;
    table.push(`| ${cell(row.loop)} | ${level === 'error' ? '✗ ' : level === 'warning' ? '⚠ ' : ''}${cell(outcome)} | ${tick?.tokens ?? 0} | ${cell(detail)} |`);
    if (level) annotations.push(`::${level} title=${escapeProperty(`loop-runtime ${row.loop}`)}::${escapeData(detail)}`);
  }
  if (rows.length === 0) table.push('| — | nothing configured | 0 | |');
  const recorded = typeof record.exitCode === 'number' ? record.exitCode : undefined;
  const final = jobCode(mostSeriousExitCode(recorded === undefined ? codes : [...codes, recorded]), given);
  const spent = rows.reduce((total, row) => total + (row.tick?.tokens ?? 0), 0);
  const metrics = options.metrics ? ['', renderMetricsSection(options.metrics)] : [];
  const markdown = ['### loop-runtime', '', verdict(final, notices), '', ...table, '', `Tokens this run: ${formatCount(spent)}.`, ...metrics, ''].join('\n');
  return { markdown, annotations, exitCode: final };
}

/** Configuration problems: one `::error` annotation per diagnostic at its file and line; the job fails (exit 3). */
function configSummary(list: unknown[], annotations: string[]): CiSummary {
  const issues = list as Array<{ file?: string; line?: number; column?: number; message?: string; fix?: string }>;
  for (const issue of issues) {
    annotations.push(`::error file=${escapeProperty(issue.file ?? '')},line=${issue.line ?? 0},col=${issue.column ?? 0},title=loop-runtime config::${escapeData(`${issue.message ?? ''} To fix: ${issue.fix ?? ''}`)}`);
  }
  return { markdown: `### loop-runtime\n\n${verdict(ExitCode.configError, 0)}\n\nConfiguration problems: ${issues.length}. See the annotations.\n`, annotations, exitCode: ExitCode.configError };
}
