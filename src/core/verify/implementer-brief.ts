/**
 * What the implementer is told about verification before it starts — what a
 * human picking up the item would be told: the commands that will judge the
 * change (with the runner each drives, so an AGENTS.md naming another one
 * does not mislead), and which tests fail at the base, with their output.
 * Pure: built from the plan's commands and the baseline's evidence.
 */
import type { CommandSpec } from '../plan/execution-plan.js';
import type { CommandEvidence, ImplementVerification } from '../ports/index.js';
import { detectTestRunner } from './test-reports/detect-test-runner.js';

/** The output tail kept per failing command (its end holds the failures and the summary). */
export const BRIEF_OUTPUT_CHARS = 4_000;
/** At most this many failing test ids per command are listed (the rest are counted). */
export const BRIEF_TEST_IDS = 50;

const failed = (entry: CommandEvidence) => entry.exitCode !== 0 || entry.timedOut || entry.signal !== null;

function tail(text: string, limit: number): string {
  return text.length <= limit ? text : `[… ${text.length - limit} earlier characters cut]\n${text.slice(-limit)}`;
}

/**
 * @example
 * ```ts
 * implementerBrief([{ command: 'npm test', timeoutMs: 1 }], baselineEvidence, { test: 'vitest run' });
 * // → { commands: [{ command: 'npm test', runner: 'vitest', runs: 'vitest run' }], baseFailing: [{ command: 'npm test', tests: ['src/a.test.ts::adds'], … }] }
 * ```
 */
export function implementerBrief(commands: readonly CommandSpec[], baseline: readonly CommandEvidence[], scripts: Record<string, string> | null): ImplementVerification {
  const listed = commands.map((spec) => {
    const detected = detectTestRunner(spec.command, scripts);
    const runner = baseline.find((entry) => entry.command === spec.command)?.tests?.runner ?? detected?.runner ?? null;
    return { command: spec.command, runner, ...(detected?.script ? { runs: detected.text } : {}) };
  });
  const baseFailing = baseline.filter(failed).map((entry) => {
    const tests = entry.tests?.source === 'report' ? Object.entries(entry.tests.tests).filter(([, status]) => status === 'failed' || status === 'errored').map(([id]) => id).sort() : [];
    const shown = tests.length > BRIEF_TEST_IDS ? [...tests.slice(0, BRIEF_TEST_IDS), `… and ${tests.length - BRIEF_TEST_IDS} more`] : tests;
    return { command: entry.command, exitCode: entry.exitCode, tests: shown, output: tail(entry.output, BRIEF_OUTPUT_CHARS) };
  });
  return { commands: listed, baseFailing };
}
