/**
 * The verifier's decision. Evidence first: the exit codes of commands the
 * verifier ran itself, after the implementer's last write. Integrity
 * findings next. The LLM checker last, and it can only lower the verdict —
 * it can never turn a failing command into an approval.
 */
import type { CheckOutput, CommandEvidence, Verdict } from '../ports/index.js';
import type { IntegrityFinding } from './check-diff-integrity.js';
import { compareTestResults } from './test-reports/compare-test-results.js';

export interface VerdictInput {
  evidence: readonly CommandEvidence[];
  integrity: readonly IntegrityFinding[];
  /** The checker's output; null when it gave none or it could not be parsed. */
  checker: CheckOutput | null;
  /** Clock time of the implementer's last write; evidence that finished before it does not count. */
  lastWriteAt: number;
  /** Commands that must each have fresh, passing evidence (the plan's verify commands). */
  expectedCommands?: readonly string[];
  /** Whether at least one piece of evidence is required. Default true: no evidence is not a pass. */
  requireEvidence?: boolean;
  /** Whether a checker is configured. Default true: a missing checker verdict then rejects. */
  checkerConfigured?: boolean;
  /**
   * The same commands run with the base commit's tests, test configuration and test scripts over the changed
   * source (only when the change edited any of them). Each must pass: a change that passes only with its own
   * edited tests is not a verified fix.
   */
  baseTests?: readonly CommandEvidence[];
  /** Why the base's tests could not be run over the change (the workspace cannot restore them…): escalates. */
  baseTestsUnavailable?: string;
  /** Test and verification paths the change edits (test files, their configuration, package.json scripts, CI). */
  verificationEdits?: readonly { path: string; detail: string }[];
  /** The loop's job is to change tests (`testEdits: allow`): verification edits alone do not escalate. */
  testEditsAllowed?: boolean;
  /**
   * The same commands at the base commit, before the implementer ran. Where a command has a per-test report at
   * the base and after the change, the per-test rule (`compareTestResults`) decides it instead of its exit code.
   */
  baseline?: readonly CommandEvidence[];
  /** The item's title and detail: base-failing tests it names must pass. */
  itemText?: string;
}

export interface VerdictResult {
  verdict: Verdict;
  reasons: string[];
  /** What the per-test rule found that does not block: tests fixed, unrelated tests still failing. */
  notes?: string[];
}

const SEVERITY: Record<Verdict, number> = { APPROVE: 0, ESCALATE_HUMAN: 1, REJECT: 2 };

function describe(evidence: CommandEvidence): string | null {
  if (evidence.timedOut) return `\`${evidence.command}\` timed out after ${evidence.durationMs} ms`;
  if (evidence.signal) return `\`${evidence.command}\` was killed by ${evidence.signal}`;
  if (evidence.exitCode !== 0) return `\`${evidence.command}\` failed with exit code ${String(evidence.exitCode)}`;
  return null;
}

/**
 * Combines evidence, integrity findings and the checker into one verdict.
 *
 * @example
 * ```ts
 * combineVerdict({ evidence: [{ command: 'npm test', exitCode: 1, signal: null, timedOut: false,
 *   durationMs: 900, output: '', finishedAt: 20 }], integrity: [],
 *   checker: { verdict: 'APPROVE', reasons: [] }, lastWriteAt: 10 });
 * // → { verdict: 'REJECT', reasons: ['`npm test` failed with exit code 1'] }
 * ```
 */
export function combineVerdict(input: VerdictInput): VerdictResult {
  let verdict: Verdict = 'APPROVE';
  const reasons: string[] = [];
  const lower = (to: Verdict, reason: string) => {
    if (SEVERITY[to] > SEVERITY[verdict]) verdict = to;
    reasons.push(reason);
  };

  // The latest evidence per command decides; reruns replace earlier results.
  const latest = new Map<string, CommandEvidence>();
  for (const evidence of input.evidence) {
    const previous = latest.get(evidence.command);
    if (!previous || evidence.finishedAt >= previous.finishedAt) latest.set(evidence.command, evidence);
  }
  if (latest.size === 0 && (input.requireEvidence ?? true)) {
    lower('REJECT', 'no verification command ran, so nothing shows the change works');
  }
  for (const command of input.expectedCommands ?? []) {
    if (!latest.has(command)) lower('REJECT', `required command \`${command}\` has no evidence`);
  }
  // The base's evidence per command, the last entry for a command winning (as a Map built from the list would), read
  // from the list itself: a few commands, asked twice a tick, with no Map or pairs list built for them.
  const baseline = input.baseline;
  // Notes come only from per-test comparisons: the set is made by the first one.
  let notes: Set<string> | null = null;
  /** The failures of one piece of evidence: per test where both sides have a report, else by exit code. */
  const failuresOf = (evidence: CommandEvidence): string[] => {
    const base = baseline?.findLast((entry) => entry.command === evidence.command);
    if (evidence.timedOut || evidence.signal) return [describe(evidence) ?? ''];
    if (base?.tests?.source === 'report' && evidence.tests?.source === 'report') {
      const comparison = compareTestResults(evidence.command, base.tests, evidence.tests, { afterExitFailed: evidence.exitCode !== 0, itemText: input.itemText ?? '' });
      if (comparison.fixed.length || comparison.stillFailing.length) notes ??= new Set<string>();
      if (comparison.fixed.length) notes!.add(`fail-to-pass (\`${evidence.command}\`): ${comparison.fixed.map((id) => `\`${id}\``).join(', ')} failed at the base and pass now`);
      if (comparison.stillFailing.length) {
        notes!.add(`\`${evidence.command}\`: ${comparison.stillFailing.map((id) => `\`${id}\``).join(', ')} failed at the base and still fail — not what this item is about, so not blocking`);
      }
      return comparison.rejects;
    }
    const failure = describe(evidence);
    if (base?.tests?.source === 'report' && evidence.tests?.source !== 'report') {
      const why = evidence.tests?.source === 'exit-code' ? evidence.tests.why : 'no report was collected';
      return [`\`${evidence.command}\` had a per-test report at the base (${base.tests.collected} tests) and none now (${why}), so what ran cannot be checked`, ...(failure ? [failure] : [])];
    }
    return failure ? [failure] : [];
  };
  for (const evidence of latest.values()) {
    const failures = failuresOf(evidence);
    for (const failure of failures) lower('REJECT', failure);
    if (failures.length === 0 && evidence.finishedAt < input.lastWriteAt) {
      lower('REJECT', `\`${evidence.command}\` passed before the last edit, so its result does not count`);
    }
  }

  for (const evidence of input.baseTests ?? []) {
    for (const failure of failuresOf(evidence)) {
      lower('REJECT', `with the base's tests: ${failure} — the change passes only with its own edited tests or test configuration, so it is not a verified fix`);
    }
  }
  if (input.baseTestsUnavailable) lower('ESCALATE_HUMAN', input.baseTestsUnavailable);
  const edits = input.verificationEdits ?? [];
  if (edits.length > 0 && !input.testEditsAllowed) {
    lower(
      'ESCALATE_HUMAN',
      `the change edits tests or what runs them, which a human decides: ${edits.map((edit) => `${edit.path} (${edit.detail})`).join(', ')}. ` +
        "To fix: if this loop's job is to change tests, set `testEdits: allow` in its `loop-runtime:` block (the base's tests still run)",
    );
  }

  for (const finding of input.integrity) {
    lower(finding.action === 'reject' ? 'REJECT' : 'ESCALATE_HUMAN', `${finding.kind} ${finding.path}: ${finding.detail}`);
  }

  const checkerConfigured = input.checkerConfigured ?? true;
  if (input.checker) {
    if (input.checker.verdict !== 'APPROVE') {
      const why = input.checker.reasons.length > 0 ? input.checker.reasons.join('; ') : 'no reason given';
      lower(input.checker.verdict, `checker: ${input.checker.verdict} (${why})`);
    }
  } else if (checkerConfigured) {
    lower('REJECT', 'the checker gave no clear verdict');
  }
  const result: VerdictResult = { verdict, reasons };
  if (notes) result.notes = [...notes];
  return result;
}

const VERDICT_LINE = /^\s*(?:#{1,6}\s*|\*\*\s*)?verdict\s*:?\s*\**\s*:?\s*(APPROVE|REJECT|ESCALATE_HUMAN|ESCALATE)\b/gim;

/**
 * Reads `## Verdict: APPROVE | REJECT | ESCALATE_HUMAN` from a checker's
 * answer. Missing, unknown or contradictory verdicts read as REJECT.
 *
 * @example
 * ```ts
 * parseVerdict('Looks fine.\n\n## Verdict: APPROVE\n'); // → 'APPROVE'
 * parseVerdict('I think it is ok'); // → 'REJECT'
 * ```
 */
export function parseVerdict(text: string): Verdict {
  const found = new Set<Verdict>();
  for (const match of text.matchAll(VERDICT_LINE)) {
    const word = (match[1] ?? '').toUpperCase();
    found.add(word === 'ESCALATE' ? 'ESCALATE_HUMAN' : (word as Verdict));
  }
  if (found.size !== 1) return 'REJECT';
  return [...found][0] ?? 'REJECT';
}
