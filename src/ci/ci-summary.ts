/**
 * Turns `loop-runtime run … --json` output into a GitHub job summary
 * (markdown for `$GITHUB_STEP_SUMMARY`) and workflow-command annotations
 * (`::error::` for failures, `::warning::` for escalations and halts,
 * `::notice::` for skipped ticks), plus the exit code the job should end
 * with. Pure: JSON in, text out.
 */
export interface CiSummary {
  markdown: string;
  annotations: string[];
  /** 0 for ok, halted (2) and lease held (4) — expected outcomes; the tick's code otherwise. */
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
  budget?: { spentToday?: number; dailyTokenCap?: number };
}

interface Row {
  loop: string;
  action: string;
  tick: TickLike | null;
  detail: string;
  exitCode: number;
}

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
      exitCode: typeof decision.exitCode === 'number' ? decision.exitCode : 0,
    }));
  }
  if (Array.isArray(output.ticks)) {
    const pattern = (output.pattern as { id?: string } | undefined)?.id ?? '?';
    return (output.ticks as TickLike[]).map((tick) => ({ loop: pattern, action: 'ticked', tick, detail: '', exitCode: tick.kind === 'failed' ? 1 : 0 }));
  }
  return [];
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
      return `halted: ${tick.message ?? tick.reason ?? ''}`;
    case 'paused':
      return `paused by ${tick.source ?? 'kill switch'}`;
    default:
      return tick.summary ?? tick.kind ?? '';
  }
}

/**
 * @example
 * ```ts
 * const summary = renderCiSummary(JSON.parse(text), { exitCode: 1 });
 * summary.annotations[0]; // → "::error title=loop-runtime ci-sweeper::failed in triage: …"
 * ```
 */
export function renderCiSummary(output: unknown, options: { exitCode?: number } = {}): CiSummary {
  const annotations: string[] = [];
  if (typeof output !== 'object' || output === null) {
    annotations.push('::error title=loop-runtime::no JSON output from the tick (see the step log)');
    return { markdown: '### loop-runtime\n\nThe tick produced no JSON output; see the step log.\n', annotations, exitCode: options.exitCode || 1 };
  }
  const record = output as Record<string, unknown>;
  const error = record.error as { code?: string; message?: string } | undefined;
  if (error) {
    const held = error.code === 'LEASE_HELD';
    annotations.push(`::${held ? 'notice' : 'error'} title=${escapeProperty(`loop-runtime ${error.code ?? 'error'}`)}::${escapeData(error.message ?? '')}`);
    return { markdown: `### loop-runtime\n\n**${error.code ?? 'error'}**: ${cell(error.message ?? '')}\n`, annotations, exitCode: held ? 0 : (options.exitCode ?? 1) || 1 };
  }
  if (Array.isArray(record.issues)) {
    const issues = record.issues as Array<{ file?: string; line?: number; column?: number; message?: string; fix?: string }>;
    for (const issue of issues) {
      annotations.push(`::error file=${escapeProperty(issue.file ?? '')},line=${issue.line ?? 0},col=${issue.column ?? 0},title=loop-runtime config::${escapeData(`${issue.message ?? ''} To fix: ${issue.fix ?? ''}`)}`);
    }
    return { markdown: `### loop-runtime\n\nConfiguration problems: ${issues.length}. See the annotations.\n`, annotations, exitCode: 3 };
  }
  const rows = rowsOf(record);
  const lines = ['### loop-runtime', '', '| loop | outcome | tokens | detail |', '|---|---|---|---|'];
  for (const row of rows) {
    const tick = row.tick;
    const title = `title=${escapeProperty(`loop-runtime ${row.loop}`)}`;
    const outcome = tick ? (tick.kind ?? row.action) : row.action;
    const detail = tick ? describe(tick) : row.detail;
    lines.push(`| ${cell(row.loop)} | ${cell(outcome)} | ${tick?.tokens ?? 0} | ${cell(detail)} |`);
    if (row.action === 'lease-held') annotations.push(`::notice ${title}::${escapeData(`skipped: ${row.detail}`)}`);
    else if (row.action === 'error' || tick?.kind === 'failed') annotations.push(`::error ${title}::${escapeData(detail)}`);
    else if (tick && ['escalated', 'halted', 'paused'].includes(tick.kind ?? '')) annotations.push(`::warning ${title}::${escapeData(detail)}`);
  }
  if (rows.length === 0) lines.push('| — | nothing configured | 0 | |');
  const spent = rows.reduce((total, row) => total + (row.tick?.tokens ?? 0), 0);
  lines.push('', `Tokens this run: ${spent.toLocaleString('en-US')}.`, '');
  const code = options.exitCode ?? (typeof record.exitCode === 'number' ? record.exitCode : 0);
  return { markdown: lines.join('\n'), annotations, exitCode: code === 2 || code === 4 ? 0 : code };
}
