/**
 * From a command's report files to its per-test evidence: parsed with the
 * parser of the format its runner was asked for, or the reason there is none
 * (then the exit code alone decides, and the evidence says so).
 */
import type { ReportFile, TestEvidence } from '../../ports/index.js';
import type { DetectedRunner } from './detect-test-runner.js';
import type { Instrumentation } from './instrument-command.js';
import { parseGoTestJson } from './parse-go-test-json.js';
import { parseJestJson } from './parse-jest-json.js';
import { parseJunit } from './parse-junit.js';
import { parseLibtest } from './parse-libtest.js';
import type { ParsedReport } from './test-results.js';

/** How the verifier meant to get a report for one command (null: the command drives no known test runner). */
export interface ReportPlan {
  detected: DetectedRunner | null;
  instrumentation: Instrumentation | null;
  /** Whether the command runner collects reports at all (`CommandRunner.collectsReports`). */
  collects: boolean;
}

function parse(file: ReportFile, instrumentation: Extract<Instrumentation, { ok: true }>['value'], runner: DetectedRunner['runner'], cwd: string): ParsedReport {
  switch (instrumentation.format) {
    case 'jest-json':
      return parseJestJson(file.text, cwd);
    case 'junit':
      return parseJunit(file.text, { reporter: instrumentation.reporter, outerSuiteIsWrapper: runner !== 'node-test' });
    case 'go-test-json':
      return parseGoTestJson(file.text);
    case 'libtest':
      return parseLibtest(file.text);
  }
}

/**
 * @example
 * ```ts
 * testEvidenceFrom(undefined, { detected: null, instrumentation: null, collects: true });
 * // → { source: 'exit-code', runner: null, why: 'the command runs no test runner the verifier knows …' }
 * ```
 */
export function testEvidenceFrom(reports: readonly ReportFile[] | undefined, plan: ReportPlan, cwd = ''): TestEvidence | null {
  const { detected, instrumentation } = plan;
  // A runner without the capability (a scripted twin, a recording made before it existed): evidence as it was.
  if (!plan.collects) return null;
  if (!detected) return { source: 'exit-code', runner: null, why: 'the command runs no test runner the verifier knows (pytest, vitest, jest, node --test, go test, cargo test), so its exit code decides' };
  if (!instrumentation) return { source: 'exit-code', runner: detected.runner, why: 'no reporter was planned for this command, so the exit code decides' };
  if (!instrumentation.ok) return { source: 'exit-code', runner: detected.runner, why: instrumentation.why };
  const file = reports?.find((entry) => entry.name === instrumentation.value.reportFile);
  if (!file) return { source: 'exit-code', runner: detected.runner, why: `${instrumentation.value.reporter} wrote no report (${instrumentation.value.reportFile})` };
  if (file.truncated) return { source: 'exit-code', runner: detected.runner, why: `the report ${file.name} was larger than the cap and was cut` };
  const parsed = parse(file, instrumentation.value, detected.runner, cwd);
  if (!parsed.ok) return { source: 'exit-code', runner: detected.runner, why: parsed.reason };
  return { source: 'report', runner: detected.runner, reporter: instrumentation.value.reporter, collected: parsed.value.collected, tests: parsed.value.tests };
}
