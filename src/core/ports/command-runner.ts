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
  /**
   * Give the command a scratch directory for test reports: created per run outside the worktree (so nothing in
   * it is ever a changed path), writable inside the sandbox, named by `$LOOP_RUNTIME_REPORT_DIR`; the regular
   * files written at its top level come back in `evidence.reports`, and the directory is removed.
   */
  reportDir?: boolean;
  /**
   * A build cache kept across runs (today Go's, for a module): `warm` — a run of trusted code (the base commit)
   * reads and fills the repository's cache; `copy` — a run of a change gets a throwaway copy, so nothing it
   * writes reaches another run. Unset: a cold per-run cache. Runners without one ignore it.
   */
  buildCache?: 'warm' | 'copy';
}

/** The environment variable that names the report directory inside the command. */
export const REPORT_DIR_ENV = 'LOOP_RUNTIME_REPORT_DIR';

/** A file the command wrote in its report directory (capped; `truncated` when it was cut). */
export interface ReportFile {
  name: string;
  text: string;
  truncated: boolean;
}

export type TestStatus = 'passed' | 'failed' | 'skipped' | 'errored';

/**
 * Per-test evidence for one command: the parsed report of the runner it drives (`source: 'report'`), or why
 * there is none and the exit code alone decided (`source: 'exit-code'`: lint, typecheck, an unknown runner).
 */
export type TestEvidence =
  | { source: 'report'; runner: string; reporter: string; collected: number; tests: Record<string, TestStatus> }
  | { source: 'exit-code'; runner: string | null; why: string };

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
  /** Files from the report directory (only when `reportDir` was asked for). */
  reports?: ReportFile[];
  /** Per-test evidence, added by the verifier from `reports`. */
  tests?: TestEvidence;
}

/** Runs commands, sandboxed where the adapter can. Failures of the command are data, not exceptions. */
export interface CommandRunner {
  readonly specificationVersion: 'command-runner-v1';
  /** "bwrap", "seatbelt", "none"… shown in evidence and refused at L3 when "none". */
  readonly isolation: string;
  /**
   * Optional capability: the runner honours `reportDir` (a scratch directory per run, its files returned as
   * `evidence.reports`). Without it the verifier runs commands as written and the exit code decides.
   */
  readonly collectsReports?: boolean;
  run(command: CommandSpec, options: CommandRunOptions): Promise<CommandEvidence>;
}
