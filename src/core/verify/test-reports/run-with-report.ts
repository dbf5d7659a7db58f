/**
 * The verifier's one way to run a verification command: with the reporter
 * of the runner it drives, in the runner's report directory, its report
 * parsed into per-test evidence (or the reason the exit code decides).
 */
import type { CommandSpec } from '../../plan/execution-plan.js';
import type { CommandEvidence, CommandRunner, CommandRunOptions } from '../../ports/index.js';
import { detectTestRunner, scriptsOf } from './detect-test-runner.js';
import { instrumentCommand } from './instrument-command.js';
import { testEvidenceFrom, type ReportPlan } from './test-evidence.js';

/**
 * Per command: the runner it drives and how its report is asked for. `readBase` gives a file's text at the
 * base commit (package.json, for `npm test`-style commands).
 */
export async function planReports(commands: readonly CommandSpec[], runner: CommandRunner, readBase: (path: string) => Promise<string | null>): Promise<Map<string, ReportPlan>> {
  const plans = new Map<string, ReportPlan>();
  let scripts: Record<string, string> | null | undefined;
  for (const command of commands) {
    if (scripts === undefined && /^\s*(?:npm|pnpm|yarn|bun)\s/.test(command.command)) scripts = scriptsOf(await readBase('package.json'));
    const detected = detectTestRunner(command.command, scripts ?? null);
    const collects = runner.collectsReports === true;
    plans.set(command.command, { detected, instrumentation: detected && collects ? instrumentCommand(command.command, detected) : null, collects });
  }
  return plans;
}

/**
 * Runs one command as its report plan says and returns its evidence with `tests` filled in and the raw report
 * files dropped (they can be large; the parsed results are what the verdict and the record keep).
 */
export async function runWithReport(runner: CommandRunner, command: CommandSpec, options: CommandRunOptions, plan: ReportPlan): Promise<CommandEvidence> {
  const instrumented = plan.instrumentation?.ok ? plan.instrumentation.value : null;
  const result = instrumented ? await runner.run(Object.assign({}, command, { command: instrumented.shell }), Object.assign({}, options, { reportDir: true })) : await runner.run(command, options);
  const reports = result.reports;
  // A copy without the report files: a plain copy when the runner gave none (a rest copy is a slow runtime call on V8 11).
  // A spread with nothing after it is V8's clone of the object's shape, one object; `Object.assign({}, …)` grew a
  // second array for the keys past the empty literal's four.
  const evidence: CommandEvidence = 'reports' in result ? withoutReports(result) : { ...result };
  const tests = testEvidenceFrom(reports, plan, options.cwd);
  // Identity is the plan's command, whatever text the runner reports (it may redact or wrap it).
  evidence.command = command.command;
  if (tests) evidence.tests = tests;
  return evidence;
}

function withoutReports(result: CommandEvidence): CommandEvidence {
  const { reports: _reports, ...evidence } = result;
  return evidence;
}

/**
 * One line per command with a report: "`pytest -q`: 165 passed, 2 failed, 0 skipped of 167 (pytest junit via
 * PYTEST_ADDOPTS)"; null for exit-code evidence.
 */
export function testSummary(evidence: CommandEvidence): string | null {
  const tests = evidence.tests;
  if (!tests) return null;
  if (tests.source === 'exit-code') return tests.runner ? `\`${evidence.command}\`: exit code only (${tests.why})` : null;
  const count = { passed: 0, failed: 0, skipped: 0, errored: 0 };
  for (const status of Object.values(tests.tests)) count[status] += 1;
  return `\`${evidence.command}\`: ${count.passed} passed, ${count.failed + count.errored} failed, ${count.skipped} skipped of ${tests.collected} (${tests.reporter})`;
}
