import type { AbortSignalLike } from './abort-signal.js';
import type { CommandSpec } from '../plan/execution-plan.js';
import type { Clock } from './clock.js';
import type { ReadOnlyBind } from './workspace.js';

export interface CommandRunOptions {
  cwd: string;
  timeoutMs: number;
  /** Extra writable directories beyond `cwd`. */
  writableRoots?: string[];
  /**
   * Directories shown read-only at `target` for this command only (the checkout's `node_modules` inside a
   * worktree): a `--ro-bind` in a sandbox, a symlink removed afterwards without one. Never copied, never written.
   */
  readOnlyBinds?: ReadOnlyBind[];
  network?: 'none' | 'loopback';
  /** Extra environment (already allowlisted by the caller). */
  env?: Record<string, string>;
  outputLimitBytes?: number;
  signal?: AbortSignalLike;
}

export interface CommandEvidence {
  command: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** Tail of combined output, capped and redacted. */
  output: string;
  /** Clock time when the command finished; evidence older than the last write does not count. */
  finishedAt: number;
}

/** Runs commands, sandboxed where the adapter can. Failures of the command are data, not exceptions. */
export interface CommandRunner {
  readonly specificationVersion: 'command-runner-v1';
  /** "bwrap", "seatbelt", "none"… shown in evidence and refused at L3 when "none". */
  readonly isolation: string;
  run(command: CommandSpec, options: CommandRunOptions): Promise<CommandEvidence>;
}
