/**
 * What `plan` and `doctor` say about each verification command: the test
 * runner it drives and the reporter the verifier adds, or that its exit code
 * alone decides — the same pure rules the verifier uses, over the checkout's
 * package.json.
 */
import { join } from 'node:path';
import { detectTestRunner, scriptsOf } from '../core/verify/test-reports/detect-test-runner.js';
import { instrumentCommand } from '../core/verify/test-reports/instrument-command.js';
import { readOptionalText } from './project-files.js';

export interface VerifyRunnerDescription {
  command: string;
  /** pytest, vitest, node-test, go-test, cargo-test; null: no test runner the verifier knows. */
  runner: string | null;
  /** "pytest junit via PYTEST_ADDOPTS"…; null when the exit code decides. */
  reporter: string | null;
  /** Why the exit code decides, when it does. */
  why?: string;
}

/**
 * @example
 * ```ts
 * await describeVerifyRunners('/repo', ['npm test', 'npm run lint']);
 * // → [{ command: 'npm test', runner: 'node-test', reporter: 'node --test junit via NODE_OPTIONS' },
 * //    { command: 'npm run lint', runner: null, reporter: null, why: 'no test runner: the exit code decides' }]
 * ```
 */
export async function describeVerifyRunners(root: string, commands: readonly string[]): Promise<VerifyRunnerDescription[]> {
  const scripts = scriptsOf(await readOptionalText(join(root, 'package.json')));
  return commands.map((command) => {
    const detected = detectTestRunner(command, scripts);
    if (!detected) return { command, runner: null, reporter: null, why: 'no test runner: the exit code decides' };
    const instrumented = instrumentCommand(command, detected);
    return instrumented.ok ? { command, runner: detected.runner, reporter: instrumented.value.reporter } : { command, runner: detected.runner, reporter: null, why: instrumented.why };
  });
}

/** One line for humans: "`pytest -q` → pytest, per test (pytest junit via PYTEST_ADDOPTS)". */
export function describeVerifyRunner(description: VerifyRunnerDescription): string {
  if (description.reporter) return `${description.command} → ${description.runner ?? ''}, per test (${description.reporter})`;
  return `${description.command} → ${description.runner ? `${description.runner}, ` : ''}exit code only (${description.why ?? ''})`;
}
