/**
 * Parses role outputs from model text. Triage answers with a JSON object;
 * the checker ends with a `## Verdict: …` line and anything else is a REJECT;
 * the implementer's summary is informational only.
 */
import * as z from 'zod';
import type { CheckOutput, ImplementOutput, TriageOutput, Verdict } from '../../src/core/ports/index.js';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; message: string };

const FindingSchema = z.object({
  severity: z.enum(['info', 'watch', 'high']).catch('info'),
  summary: z.string(),
  itemKey: z.string().optional(),
});

const WorkItemSchema = z.object({
  key: z.string().min(1),
  title: z.string(),
  paths: z.array(z.string()).optional(),
});

/** The triage wire format. Liberal where models drift (missing arrays), strict on the decision. */
export const TriageOutputSchema = z
  .object({
    decision: z.enum(['noop', 'report', 'act']),
    summary: z.string().default(''),
    findings: z.array(FindingSchema).default([]),
    items: z.array(WorkItemSchema).default([]),
  })
  .refine((value) => value.decision !== 'act' || value.items.length > 0, {
    message: 'decision "act" needs at least one item',
    path: ['items'],
  });

function jsonCandidates(text: string): string[] {
  const candidates = [text.trim()];
  for (const match of text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)) {
    if (match[1]) candidates.push(match[1].trim());
  }
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  return candidates;
}

/**
 * Parses the triage JSON from model text (bare, fenced, or embedded in prose).
 *
 * @example
 * ```ts
 * parseTriageOutput('{"decision":"noop","summary":"quiet"}'); // ok, findings [] items []
 * ```
 */
export function parseTriageOutput(text: string): ParseResult<TriageOutput> {
  let lastProblem = 'no JSON object found';
  for (const candidate of jsonCandidates(text)) {
    let json: unknown;
    try {
      json = JSON.parse(candidate);
    } catch {
      continue;
    }
    const parsed = TriageOutputSchema.safeParse(json);
    if (parsed.success) {
      const value = parsed.data;
      return {
        ok: true,
        value: {
          decision: value.decision,
          summary: value.summary,
          findings: value.findings.map((finding) => ({
            severity: finding.severity,
            summary: finding.summary,
            ...(finding.itemKey !== undefined ? { itemKey: finding.itemKey } : {}),
          })),
          items: value.items.map((item) => ({
            key: item.key,
            title: item.title,
            ...(item.paths !== undefined ? { paths: item.paths } : {}),
          })),
        },
      };
    }
    lastProblem = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
  }
  return {
    ok: false,
    message: `Triage output is not valid: ${lastProblem}. To fix: the model must answer with one JSON object {decision, summary, findings, items}.`,
  };
}

const VERDICT_LINE = /^\s*#{1,6}\s*\**\s*Verdict\s*:?\s*\**\s*(APPROVE|REJECT|ESCALATE_HUMAN)\b.*$/gim;

/**
 * Parses the checker's verdict. The last verdict line wins; no verdict line
 * means REJECT, so a confused checker can never approve by accident.
 *
 * @example
 * ```ts
 * parseCheckOutput('Looks right.\n## Verdict: APPROVE\n- tests pass').verdict; // 'APPROVE'
 * ```
 */
export function parseCheckOutput(text: string): CheckOutput {
  const matches = [...text.matchAll(VERDICT_LINE)];
  const last = matches.at(-1);
  if (!last || last.index === undefined) {
    return { verdict: 'REJECT', reasons: ['The checker gave no "## Verdict:" line; treated as REJECT.'] };
  }
  const verdict = last[1]!.toUpperCase() as Verdict;
  const after = text.slice(last.index + last[0].length);
  const bullets = (source: string) =>
    source
      .split('\n')
      .map((line) => /^\s*[-*]\s+(.*\S)/.exec(line)?.[1])
      .filter((line): line is string => line !== undefined);
  let reasons = bullets(after);
  if (reasons.length === 0) reasons = bullets(text.slice(0, last.index));
  if (reasons.length === 0) {
    const prose = text.slice(0, last.index).trim();
    if (prose) reasons = [prose.length > 500 ? `${prose.slice(0, 500)}…` : prose];
  }
  return { verdict, reasons };
}

/** The implementer's own account. Informational: the gate reads the diff. */
export function parseImplementOutput(text: string, completed: boolean): ImplementOutput {
  const summary = text.trim();
  return { summary: summary.length > 4000 ? `${summary.slice(0, 4000)}…` : summary, completed };
}
