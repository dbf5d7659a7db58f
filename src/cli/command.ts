import type { Diagnostic } from '../core/config/diagnostics.js';
import type { Clock } from '../core/ports/clock.js';

/**
 * The contract between `main.ts` and one command. A command is a definition
 * (name, flags, help) plus a lazily imported handler, so start-up parses argv
 * without loading what other commands need.
 *
 * Handlers call the library and return data; they never print. `main.ts`
 * renders `json` with `--json` and `text` otherwise.
 */
export interface CliIO {
  cwd: string;
  env: Record<string, string | undefined>;
  /** True when stdout is a terminal (colour); live progress follows stderr's terminal. */
  isTTY: boolean;
  /** True under CI=true: plain lines with timestamps, no progress redraws. */
  ci: boolean;
  /**
   * The time every command reads: what a tick records, what `status`, `metrics`, `history` and the console count a
   * day or a window from. The real clock; `main`'s `clock` option replaces it (tests, embedders).
   */
  clock: Clock;
  /** Streaming progress for long work (already a no-op under --json). */
  progress: (line: string) => void;
  /** Lines a long-running command (serve) prints on stdout as they happen, with or without --json. */
  announce: (line: string) => void;
  /**
   * For interruptible work (`run`, `worker`, `serve`): a signal aborted by the first SIGINT (Ctrl-C), SIGTERM or
   * SIGHUP while the command runs, its `reason` the signal's name (`exitCodeForSignal` gives the exit code). Only a
   * command that asks for it changes what those signals do; a second one ends the process at once.
   */
  stopSignal: () => AbortSignal;
}

export interface CommandContext {
  /** Positional arguments after the command name (and sub-action, if any). */
  args: string[];
  /** Parsed flags, camelCased by cac (`--dry-run` → `dryRun`). */
  options: Record<string, unknown>;
  io: CliIO;
}

/** The one error shape every command prints: `{ ok: false, error }` on stdout with --json, `text` on stderr otherwise. */
export interface CliError {
  code: string;
  message: string;
  fix?: string;
  /** Configuration problems, each with file, line, key and fix. */
  issues?: readonly Diagnostic[];
}

export interface CommandOutput {
  exitCode: number;
  /** Set when the command failed before doing its work: printed as an error, not as the command's output. */
  error?: CliError;
  /** Machine output for --json. */
  json: unknown;
  /** Human output; may contain picocolors escapes (main strips them when colour is off). */
  text: string;
  /** With --json, the envelope's `error.code` when the command exits non-zero without an `error` (default: named after the exit code). */
  errorCode?: string;
  /** Human diagnostics for stderr (shown with and without --json). */
  stderr?: string;
}

export type CommandHandler = (context: CommandContext) => Promise<CommandOutput>;

export interface CommandDefinition {
  /** cac signature, e.g. "run [id]" or "gate <action>". */
  name: string;
  description: string;
  options: ReadonlyArray<{ flags: string; description: string; default?: unknown }>;
  examples?: readonly string[];
  load: () => Promise<CommandHandler>;
}
