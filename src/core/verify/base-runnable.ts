/**
 * Whether a verification command could run at all at the base. A command
 * that is not found, exits with its runner's usage error or collects no
 * test says nothing about any change: every attempt would be judged by it
 * (and paid for) in vain. The engine stops the tick before the implementer
 * instead, naming the command and the fix. Pure: reads only the evidence.
 */
import type { CommandEvidence } from '../ports/index.js';
import { runnerOfText } from './test-reports/detect-test-runner.js';

export type CannotRunKind = 'command-not-found' | 'usage-error' | 'no-tests-collected';

export interface CannotRun {
  command: string;
  kind: CannotRunKind;
  /** What happened, why it matters, and "To fix: …". */
  message: string;
}

// The shell's own words (bash: "x: command not found", dash: "sh: 1: x: not found"), or python without pytest.
const NOT_FOUND = /(?:^\S*(?:sh|bash)(?:: line \d+|: \d+)?: \S+: (?:command )?not found$|No module named '?pytest\b)/m;
const MISSING_SCRIPT = /(?:npm (?:ERR!|error) Missing script|error Command "[^"]+" not found|ERR_PNPM_NO_SCRIPT)/;
const NO_TESTS = [
  /no tests ran\b/i, // pytest exit 5 prints "no tests ran in 0.01s"
  /^No test files found, exiting with code/m, // vitest
  /^No tests found, exiting with code/m, // jest
];

/** The runner a command drives, from its per-test evidence or its own text. */
function runnerOf(evidence: CommandEvidence): string | null {
  return evidence.tests?.runner ?? runnerOfText(evidence.command);
}

/** go: every package line says "[no test files]" and none ran. */
function goRanNothing(output: string): boolean {
  return /\[no test files\]/.test(output) && !/^(?:ok|FAIL|---|=== RUN)\s/m.test(output);
}

/** cargo: every "running N tests" line has N = 0 (doc-tests print one too). */
function cargoRanNothing(output: string): boolean {
  const counts = [...output.matchAll(/^running (\d+) tests?$/gm)].map((match) => Number(match[1]));
  return counts.length > 0 && counts.every((count) => count === 0);
}

/** node --test: its summary says 0 tests ("# tests 0" in TAP, "ℹ tests 0" in spec). */
function nodeRanNothing(output: string): boolean {
  return /^(?:#|ℹ) tests 0$/m.test(output);
}

/**
 * @example
 * ```ts
 * cannotRunAtBase({ command: 'pytest -q', exitCode: 5, output: 'no tests ran in 0.01s', … });
 * // → { command: 'pytest -q', kind: 'no-tests-collected', message: '`pytest -q` collected no tests at the base … To fix: …' }
 * ```
 */
export function cannotRunAtBase(evidence: CommandEvidence): CannotRun | null {
  if (evidence.timedOut || evidence.signal !== null) return null;
  const { command, exitCode, output } = evidence;
  const runner = runnerOf(evidence);
  const at = `\`${command}\``;
  const python = runner === 'pytest';
  if (exitCode === 127 || (exitCode !== 0 && NOT_FOUND.test(output))) {
    return {
      command,
      kind: 'command-not-found',
      message:
        `${at} could not run at the base: its program was not found (exit ${exitCode}), so it cannot show whether any change works. ` +
        (python
          ? 'To fix: activate or point at the project\'s virtualenv (e.g. `verify: [.venv/bin/python -m pytest]` in the `loop-runtime:` block of LOOP.md) or install pytest where the command runs.'
          : 'To fix: install the test runner the command names (e.g. `npm ci` in the checkout), or set the right command under `verify:` in the `loop-runtime:` block of LOOP.md.'),
    };
  }
  if ((python && exitCode === 4) || (exitCode !== 0 && MISSING_SCRIPT.test(output))) {
    return {
      command,
      kind: 'usage-error',
      message:
        `${at} could not run at the base: ${python ? 'pytest exited 4 (a usage error: an unknown option or a missing path)' : 'the package.json script it runs does not exist'}, so it cannot show whether any change works. ` +
        'To fix: run the command by hand in the checkout and correct it (or its configuration) under `verify:` in the `loop-runtime:` block of LOOP.md.',
    };
  }
  const collectedNone = evidence.tests?.source === 'report' && evidence.tests.collected === 0;
  const ranNothing =
    collectedNone ||
    (python && exitCode === 5) ||
    NO_TESTS.some((pattern) => pattern.test(output)) ||
    (runner === 'go-test' && goRanNothing(output)) ||
    (runner === 'cargo-test' && cargoRanNothing(output)) ||
    (runner === 'node-test' && nodeRanNothing(output));
  if (ranNothing) {
    return {
      command,
      kind: 'no-tests-collected',
      message:
        `${at} collected no tests at the base, so passing or failing it after a change shows nothing. ` +
        'To fix: point the command at the tests (a path, `testpaths` in pytest\'s configuration, the package pattern such as `./...`), or add a test that shows the item.',
    };
  }
  return null;
}
