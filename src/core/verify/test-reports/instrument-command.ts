/**
 * How to get a machine-readable report out of a runner without editing the
 * repository: an environment variable the runner reads (PYTEST_ADDOPTS,
 * NODE_OPTIONS, GOFLAGS) or arguments appended to the command (vitest), the
 * report written into the per-run `$LOOP_RUNTIME_REPORT_DIR` that the command
 * runner provides outside the worktree. Runners whose report is their output
 * (go test -json, cargo's libtest lines) are teed into that directory with
 * the command's own exit code kept.
 */
// From its own port module, not the ports' index: `plan` loads this file, and the index re-exports every port
// (two more bundle files for one string).
import { REPORT_DIR_ENV } from '../../ports/command-runner.js';
import type { DetectedRunner, TestRunnerKind } from './detect-test-runner.js';

export type ReportFormat = 'junit' | 'jest-json' | 'go-test-json' | 'libtest';

export interface InstrumentedCommand {
  /** The shell text to run in place of the plan's command. */
  shell: string;
  /** The file in the report directory that holds the report. */
  reportFile: string;
  format: ReportFormat;
  /** Named in evidence: "pytest junit via PYTEST_ADDOPTS". */
  reporter: string;
}

export type Instrumentation = { ok: true; value: InstrumentedCommand } | { ok: false; why: string };

const DIR = `$${REPORT_DIR_ENV}`;
/** `export NAME="<existing value> <added>"`, keeping what the environment already had. */
const extend = (name: string, added: string) => `export ${name}="\${${name}:+$${name} }${added}"`;
/**
 * Tees stdout (and stderr when `both`) to a report file and exits with the command's own code; `show` turns what
 * the command prints into what a human reads (the evidence's output) while the file keeps the machine format.
 */
const tee = (command: string, file: string, both: boolean, show = '') =>
  `{ ${command}${both ? ' 2>&1' : ''}; echo $? > "${DIR}/.exit-code"; } | tee "${DIR}/${file}"${show}; exit "$(cat "${DIR}/.exit-code")"`;
/** test2json lines back to `go test -v` text: each event's Output, unescaped (the report file keeps the JSON). */
const GO_TEXT = ` | sed -n -e 's/^{.*"Output":"\\(.*\\)"}$/\\1/p' | sed -e 's/\\\\n$//' -e 's/\\\\t/	/g' -e 's/\\\\"/"/g' -e 's/\\\\\\\\/\\\\/g'`;

/** No shell operators: arguments appended go to the one command there is. */
const SIMPLE = /^[^;&|<>`()\n]*$/;

/**
 * @example
 * ```ts
 * instrumentCommand('pytest -q', { runner: 'pytest', text: 'pytest -q' });
 * // → { ok: true, value: { shell: 'export PYTEST_ADDOPTS="…--junitxml=$LOOP_RUNTIME_REPORT_DIR/pytest-junit.xml -rA"; pytest -q', … } }
 * ```
 */
export function instrumentCommand(command: string, detected: DetectedRunner): Instrumentation {
  const runner: TestRunnerKind = detected.runner;
  switch (runner) {
    case 'pytest':
      return {
        ok: true,
        value: {
          shell: `${extend('PYTEST_ADDOPTS', `--junitxml=${DIR}/pytest-junit.xml -rA`)}; export PYTHONDONTWRITEBYTECODE=1; ${command}`,
          reportFile: 'pytest-junit.xml',
          format: 'junit',
          reporter: 'pytest junit via PYTEST_ADDOPTS',
        },
      };
    case 'node-test':
      // Node requires one destination per reporter: reporters of our own next to the script's would fail its run.
      if (/--test-reporter\b/.test(detected.text)) return { ok: false, why: 'the node --test command chooses its own --test-reporter, so ours cannot be added beside it' };
      return {
        ok: true,
        value: {
          shell: `${extend('NODE_OPTIONS', `--test-reporter=tap --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=${DIR}/node-test-junit.xml`)}; ${command}`,
          reportFile: 'node-test-junit.xml',
          format: 'junit',
          reporter: 'node --test junit via NODE_OPTIONS',
        },
      };
    case 'vitest': {
      if (!SIMPLE.test(command) || !SIMPLE.test(detected.text) || !/^\s*(?:npx\s+|pnpm\s+exec\s+|yarn\s+)?vitest\b/.test(detected.text)) {
        return { ok: false, why: 'vitest runs inside a compound command or script, so its reporter cannot be added without editing the repository' };
      }
      const separator = detected.script?.manager === 'npm' ? ' --' : '';
      return {
        ok: true,
        value: {
          shell: `${command}${separator} --reporter=default --reporter=junit --outputFile.junit="${DIR}/vitest-junit.xml"`,
          reportFile: 'vitest-junit.xml',
          format: 'junit',
          reporter: 'vitest junit via appended arguments',
        },
      };
    }
    case 'jest': {
      if (!SIMPLE.test(command) || !SIMPLE.test(detected.text) || !/^\s*(?:npx\s+|pnpm\s+exec\s+|yarn\s+)?jest\b/.test(detected.text)) {
        return { ok: false, why: 'jest runs inside a compound command or script, so its reporter cannot be added without editing the repository' };
      }
      const separator = detected.script?.manager === 'npm' ? ' --' : '';
      return {
        ok: true,
        value: { shell: `${command}${separator} --json --outputFile="${DIR}/jest.json"`, reportFile: 'jest.json', format: 'jest-json', reporter: 'jest json via appended arguments' },
      };
    }
    case 'go-test':
      return {
        ok: true,
        value: {
          shell: `${extend('GOFLAGS', '-json')}; export GOTOOLCHAIN=local GOPROXY=off; ${tee(command, 'go-test.jsonl', false, GO_TEXT)}`,
          reportFile: 'go-test.jsonl',
          format: 'go-test-json',
          reporter: 'go test -json via GOFLAGS',
        },
      };
    case 'cargo-test': {
      // Cargo stops at the first failing test target; the others must run too, or their tests would look missing.
      const noFailFast = /--no-fail-fast\b/.test(command) ? command : command.replace(/^(\s*cargo\s+(?:\+\S+\s+)?test)\b/, '$1 --no-fail-fast');
      return {
        ok: true,
        value: {
          shell: `export CARGO_NET_OFFLINE=true CARGO_TERM_COLOR=never; ${tee(noFailFast, 'cargo-test.txt', true)}`,
          reportFile: 'cargo-test.txt',
          format: 'libtest',
          reporter: 'cargo libtest output',
        },
      };
    }
  }
}
