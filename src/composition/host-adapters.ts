/**
 * The adapters a command needs before (or without) a project: the clock and the sandboxed command runner. Commands
 * that must work when the configuration does not load (`sandbox run`, `validate`'s sandbox trial, `serve`, `worker`,
 * the CI summary) get them here, so which clock and which runner back a port is decided in one place, as
 * `project-adapters.ts` does for the per-repository ones (test/composition-root.test.ts holds the rule).
 *
 * @example
 * ```ts
 * const clock = clockFor(io.clock, { clockFile: options.clockFile }); // the command's clock unless a rehearsal's file is given
 * const runner = await sandboxRunnerFor({ level: 'L2', allowUnsandboxed: false, log: console.error });
 * ```
 */
import type { Clock, CommandRunner } from '../core/ports/index.js';
import type { CreateSandboxedRunnerOptions } from '../adapters/command-runner/bwrap-runner.js';
import { fileClock } from '../adapters/clock/file-clock.js';

/** The command's clock (`CliIO.clock`); with `clockFile`, a clock read from that file (rehearsals and tests of long-running processes). */
export function clockFor(host: Clock, choice: { clockFile?: string | undefined } = {}): Clock {
  return choice.clockFile === undefined ? host : fileClock(choice.clockFile);
}

/** The runner a loop's verification commands use (bubblewrap or Seatbelt; none only with the logged opt-out). */
export async function sandboxRunnerFor(options: CreateSandboxedRunnerOptions): Promise<CommandRunner> {
  const { createSandboxedRunner } = await import('../adapters/command-runner/bwrap-runner.js');
  return createSandboxedRunner(options);
}
