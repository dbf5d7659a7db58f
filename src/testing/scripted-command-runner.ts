import type { CommandSpec } from '../core/plan/execution-plan.js';
import { REPORT_DIR_ENV, type Clock, type CommandEvidence, type CommandRunner, type CommandRunOptions, type ReportFile, type TestStatus } from '../core/ports/index.js';

export interface ScriptedCommandRunnerOptions {
  /** Exit code per command line; commands not listed exit with `defaultExitCode`. */
  exitCodes?: Record<string, number>;
  /** Default 0: every command passes. */
  defaultExitCode?: number;
  /**
   * Per-test results per plan command, one entry per run in order (base, after the change, with the base's
   * tests…; the last repeats). Given, the runner collects reports like a real one: it answers the verifier's
   * reporter with a JUnit report of these results, and a run with a failing test exits 1 unless `exitCodes` says.
   */
  testResults?: Record<string, ReadonlyArray<Record<string, TestStatus>>>;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escape = (text: string) => text.replace(/[&<>"]/g, (char) => ESCAPES[char] ?? char);

/** A JUnit document of `tests` (ids `classname::name`), wrapped in one suite as pytest and vitest write it. */
function junitOf(tests: Record<string, TestStatus>, wrapped: boolean): string {
  const child: Record<TestStatus, string> = { passed: '', failed: '<failure message="scripted"/>', errored: '<error message="scripted"/>', skipped: '<skipped/>' };
  const cases = Object.entries(tests).map(([id, status]) => {
    const at = id.indexOf('::');
    const [classname, name] = at === -1 ? ['', id] : [id.slice(0, at), id.slice(at + 2)];
    return `<testcase classname="${escape(classname)}" name="${escape(name)}">${child[status]}</testcase>`;
  });
  return wrapped ? `<testsuites><testsuite name="scripted">${cases.join('')}</testsuite></testsuites>` : `<testsuites>${cases.join('')}</testsuites>`;
}

/** The output a run prints, one string per exit code: the verifier reads it (several regexes) on every run. */
const OUTPUTS = new Map<number, string>();
function outputOf(exitCode: number): string {
  let output = OUTPUTS.get(exitCode);
  if (output === undefined) OUTPUTS.set(exitCode, (output = `scripted exit ${exitCode}`));
  return output;
}

/**
 * A command runner that runs nothing: each command "exits" with its scripted
 * code and finishes at the injected clock's now, so its evidence is fresh
 * (after the implementer's last write) exactly as real evidence would be.
 *
 * @example
 * ```ts
 * const commands = new ScriptedCommandRunner(clock, { exitCodes: { 'npm test': 1 } });
 * (await commands.run({ command: 'npm test', timeoutMs: 1000 }, { cwd: '/w', timeoutMs: 1000 })).exitCode; // → 1
 * ```
 */
export class ScriptedCommandRunner implements CommandRunner {
  readonly specificationVersion = 'command-runner-v1' as const;
  readonly isolation = 'scripted';
  readonly collectsReports: boolean;
  /** Every command run, in order, with the directory it ran in (the plan's command, not the reporter's wrapping). */
  readonly runs: Array<{ command: string; cwd: string }> = [];
  private readonly testRuns = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly options: ScriptedCommandRunnerOptions = {},
  ) {
    this.collectsReports = options.testResults !== undefined;
  }

  async run(command: CommandSpec, options: CommandRunOptions): Promise<CommandEvidence> {
    // The verifier may wrap a plan command in its reporter's environment or arguments: answer for the plan command.
    const results = this.options.testResults;
    // No per-test results scripted (the common case): the command is its own plan command, with no list of keys built.
    const planned = results ? (Object.keys(results).find((key) => command.command === key || command.command.includes(key)) ?? command.command) : command.command;
    this.runs.push({ command: planned, cwd: options.cwd });
    const sequence = results?.[planned];
    let tests: Record<string, TestStatus> | undefined;
    if (sequence) {
      // Runs are counted per command only where a sequence of results is scripted (the only reader of the count).
      const index = this.testRuns.get(planned) ?? 0;
      this.testRuns.set(planned, index + 1);
      tests = sequence[Math.min(index, sequence.length - 1)];
    }
    const failing = tests ? Object.values(tests).some((status) => status === 'failed' || status === 'errored') : false;
    const exitCode = this.options.exitCodes?.[planned] ?? (tests ? (failing ? 1 : 0) : (this.options.defaultExitCode ?? 0));
    const evidence: CommandEvidence = { command: planned, exitCode, signal: null, timedOut: false, durationMs: 0, output: outputOf(exitCode), finishedAt: this.clock.now() };
    if (!options.reportDir) return evidence;
    const reports: ReportFile[] = [];
    const file = new RegExp(`\\$${REPORT_DIR_ENV}/([\\w.-]+\\.xml)`).exec(command.command)?.[1];
    if (tests && file) reports.push({ name: file, text: junitOf(tests, !file.startsWith('node-test')), truncated: false });
    return { ...evidence, reports };
  }
}
