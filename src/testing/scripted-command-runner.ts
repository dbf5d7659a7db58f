import type { CommandSpec } from '../core/plan/execution-plan.js';
import type { Clock, CommandEvidence, CommandRunner, CommandRunOptions } from '../core/ports/index.js';

export interface ScriptedCommandRunnerOptions {
  /** Exit code per command line; commands not listed exit with `defaultExitCode`. */
  exitCodes?: Record<string, number>;
  /** Default 0: every command passes. */
  defaultExitCode?: number;
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
  /** Every command run, in order, with the directory it ran in. */
  readonly runs: Array<{ command: string; cwd: string }> = [];

  constructor(
    private readonly clock: Clock,
    private readonly options: ScriptedCommandRunnerOptions = {},
  ) {}

  async run(command: CommandSpec, options: CommandRunOptions): Promise<CommandEvidence> {
    this.runs.push({ command: command.command, cwd: options.cwd });
    const exitCode = this.options.exitCodes?.[command.command] ?? this.options.defaultExitCode ?? 0;
    return { command: command.command, exitCode, signal: null, timedOut: false, durationMs: 0, output: `scripted exit ${exitCode}`, finishedAt: this.clock.now() };
  }
}
