/**
 * The words of a verified change: its commit message and its pull request.
 * They come from the change itself — the pattern, the implementer's summary
 * (redacted on its way into git and to the remote), the changed paths and the
 * verification — never verbatim from the item, whose title an outsider may
 * have written (an issue, a CI run name). The item appears only in the body,
 * quoted as data (`quoteUntrusted`).
 */
import { plainLine, quoteUntrusted } from '../security/untrusted-text.js';
import { firstFilledLine } from '../text/first-filled-line.js';
import { formatCount } from '../text/format-count.js';
import type { TickContext } from './tick-context.js';
import type { VerificationSummary } from './tick-result.js';
import type { WorkItem } from '../ports/index.js';

/** git's conventional subject width. */
const SUBJECT_MAX = 72;
const TITLE_MAX = 120;
const SUMMARY_MAX = 600;

export interface ChangeFacts {
  item: WorkItem;
  summary: string;
  paths: readonly string[];
  verification: VerificationSummary;
}

/** What changed, in one line: the summary's first line, else the paths. */
function changeLine(summary: string, paths: readonly string[], max: number): string {
  const first = plainLine(firstFilledLine(summary), max);
  if (first) return first;
  const shown = paths.slice(0, 3).join(', ');
  return plainLine(`change ${paths.length} file(s)${shown ? `: ${shown}` : ''}${paths.length > 3 ? ', …' : ''}`, max);
}

/**
 * @example
 * ```ts
 * commitMessage(context, { item, summary: 'Guard the parser against empty input', paths: ['src/parse.ts'], verification });
 * // 'daily-triage: Guard the parser against empty input\n\nItem: `bug-1`, reported as `…`\nWhat: …'
 * ```
 */
export function commitMessage(context: TickContext, facts: ChangeFacts): string {
  const { item, summary, paths, verification } = facts;
  const prefix = `${context.plan.pattern.id}: `;
  const subject = `${prefix}${changeLine(summary, paths, Math.max(20, SUBJECT_MAX - prefix.length))}`;
  const evidence = verification.evidence.map((entry) => `- \`${entry.command}\` → exit ${entry.exitCode ?? entry.signal ?? '?'}`);
  return [
    subject,
    '',
    `Item: ${quoteUntrusted(item.key, 80)}, reported as ${quoteUntrusted(item.title)}`,
    `What: ${plainLine(summary, SUMMARY_MAX) || '(no summary)'}`,
    `Changed: ${paths.length} file(s)`,
    ...(evidence.length ? ['', 'Verification:', ...evidence] : []),
  ].join('\n');
}

/** The pull request's title: the pattern's name and what changed. */
export function pullRequestTitle(context: TickContext, facts: ChangeFacts): string {
  const prefix = `${context.plan.pattern.name}: `;
  return `${prefix}${changeLine(facts.summary, facts.paths, Math.max(20, TITLE_MAX - prefix.length))}`;
}

export function pullRequestBody(context: TickContext, facts: ChangeFacts): string {
  const { item, summary, verification } = facts;
  const rows = verification.evidence.map((entry) => `| \`${entry.command}\` | ${entry.exitCode ?? entry.signal ?? '?'} | ${entry.durationMs} ms |`);
  return [
    `Opened by loop-runtime (${context.plan.pattern.name}, ${context.plan.level}, tick ${context.tickId}).`,
    '',
    `**Item:** ${quoteUntrusted(item.key, 80)}, reported as ${quoteUntrusted(item.title)}`,
    `**Change:** ${quoteUntrusted(summary, SUMMARY_MAX)}`,
    `**Files:** ${facts.paths.length}`,
    '',
    `**Verifier:** ${verification.verdict} — ${verification.reasons.join('; ')}`,
    ...(rows.length ? ['', '| command | exit | time |', '|---|---|---|', ...rows] : []),
    '',
    `**Tokens spent:** ${formatCount(context.tokens)}`,
  ].join('\n');
}
