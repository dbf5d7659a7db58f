/**
 * One error type for the whole runtime. Every error has a stable `code`, a
 * message in three parts (what happened, why, and "To fix: …"), an optional
 * `cause`, and a `retryable` flag for adapters whose failures may pass.
 *
 * The CLI maps codes to exit codes in one place (`exitCodeFor`).
 */
export type LoopErrorCode =
  | 'CONFIG_INVALID'
  | 'PATTERN_NOT_FOUND'
  | 'CAPABILITY_UNSUPPORTED'
  | 'BACKEND_FAILED'
  | 'BACKEND_NOT_FOUND'
  | 'WORKSPACE_FAILED'
  | 'STATE_FAILED'
  | 'SANDBOX_UNAVAILABLE'
  | 'LEASE_HELD'
  | 'BUDGET_EXHAUSTED'
  | 'BUDGET_LEDGER_UNREADABLE'
  | 'PAUSED'
  | 'PRECONDITION_FAILED'
  | 'USAGE'
  | 'RECORDING_INVALID'
  | 'INTERNAL';

export interface LoopErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  fix?: string;
  detail?: unknown;
}

export class LoopRuntimeError extends Error {
  readonly code: LoopErrorCode;
  readonly retryable: boolean;
  readonly fix: string | undefined;
  readonly detail: unknown;

  constructor(code: LoopErrorCode, message: string, options: LoopErrorOptions = {}) {
    super(options.fix ? `${message} To fix: ${options.fix}` : message, { cause: options.cause });
    this.name = 'LoopRuntimeError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.fix = options.fix;
    this.detail = options.detail;
  }
}

/** Thrown when a port is asked for an optional capability it does not implement. */
export class CapabilityUnsupportedError extends LoopRuntimeError {
  constructor(port: string, capability: string) {
    super('CAPABILITY_UNSUPPORTED', `${port} does not support "${capability}".`, {
      fix: `use an adapter that implements ${capability}, or disable the feature that needs it.`,
    });
    this.name = 'CapabilityUnsupportedError';
  }
}

export function isLoopRuntimeError(value: unknown): value is LoopRuntimeError {
  return value instanceof LoopRuntimeError;
}

/**
 * Documented process exit codes. CI and schedulers read them by one rule:
 * 0, 2 and 4 are outcomes a scheduled run may end with (green, with a notice
 * for 2 and 4); 1, 3 and 5 fail the job, the unit or the cron mail.
 */
export const ExitCode = {
  ok: 0,
  /** A tick failed (backend or workspace error that may pass on the next tick). */
  tickFailed: 1,
  /** Halted on purpose: budget exhausted, kill switch, L0. A notice, not a failure. */
  halted: 2,
  /** Configuration, usage or an unmet precondition (no commit, no remote, no GitHub token, agent not installed). */
  configError: 3,
  /** Another tick of the same loop holds the lease. A notice, not a failure. */
  leaseHeld: 4,
  /** The loop could not run and a human must act: backend logged out or out of quota, no sandbox, circuit open (a missing agent CLI or key is caught earlier, as a precondition: 3). */
  needsHuman: 5,
  /** `replay` / `test`: a recorded tick now ends differently under the current engine and configuration. */
  replayDiffers: 6,
  /** The operator stopped the command (Ctrl-C, SIGINT): 128 + 2, as shells report it. SIGTERM is 143, SIGHUP 129 (`exitCodeForSignal`). */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The signals that stop a command the way Ctrl-C does, with their numbers: SIGINT (Ctrl-C, GitHub Actions' first
 * step of a cancel), SIGTERM (systemd, `timeout`, `docker stop`, Kubernetes, a cancelled CI job), SIGHUP (a closed
 * terminal). The same on Linux and macOS.
 */
export const STOP_SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
export type StopSignalName = keyof typeof STOP_SIGNALS;

/** True for the name of a signal that stops a command like Ctrl-C. */
export function isStopSignal(value: unknown): value is StopSignalName {
  return typeof value === 'string' && Object.hasOwn(STOP_SIGNALS, value);
}

/**
 * The exit code of a command a signal stopped: 128 + the signal's number, as shells report a process the signal
 * killed, so a scheduler reads the same code whether the process settled first or not. Anything else (an abort
 * without a signal) is SIGINT's 130.
 *
 * @example
 * ```ts
 * exitCodeForSignal('SIGTERM'); // → 143
 * exitCodeForSignal('SIGHUP');  // → 129
 * ```
 */
export function exitCodeForSignal(signal: unknown): number {
  return 128 + (isStopSignal(signal) ? STOP_SIGNALS[signal] : STOP_SIGNALS.SIGINT);
}

/** Exit codes a scheduled run may end with without failing (systemd SuccessExitStatus, cron wrapper, `ci summary`). */
export const NOTICE_EXIT_CODES: readonly number[] = [ExitCode.halted, ExitCode.leaseHeld];

/** True for exit codes that must fail a scheduled job: anything but 0 and the notices. */
export function isFailingExitCode(code: number): boolean {
  return code !== ExitCode.ok && !NOTICE_EXIT_CODES.includes(code);
}

/** Halt reasons that are the loop working as configured (cap reached, draft level). Any other reason needs a human. */
export const NOTICE_HALT_REASONS: readonly string[] = ['budget-exhausted', 'level-l0', 'max-runs-per-day'];

/**
 * The exit code for a halted tick. Fails closed: a reason not known to be a
 * notice (backend-stopped, circuit-open, or one added later) is `needsHuman`.
 *
 * @example
 * ```ts
 * exitCodeForHalt('budget-exhausted'); // → 2
 * exitCodeForHalt('backend-stopped');  // → 5
 * ```
 */
export function exitCodeForHalt(reason: string): ExitCode {
  return NOTICE_HALT_REASONS.includes(reason) ? ExitCode.halted : ExitCode.needsHuman;
}

/** Most serious first: what a run of several loops exits with. Unknown non-zero codes rank as failures. */
const SEVERITY: readonly number[] = [ExitCode.needsHuman, ExitCode.configError, ExitCode.replayDiffers, ExitCode.tickFailed, ExitCode.halted, ExitCode.leaseHeld, ExitCode.ok];

/** The most serious of several exit codes (an unknown non-zero code outranks every known one). */
export function mostSeriousExitCode(codes: readonly number[]): number {
  const unknown = codes.find((code) => !SEVERITY.includes(code));
  if (unknown !== undefined) return unknown;
  return SEVERITY.find((code) => codes.includes(code)) ?? ExitCode.ok;
}

export function exitCodeFor(error: unknown): ExitCode {
  return isLoopRuntimeError(error) ? exitCodeForErrorCode(error.code) : ExitCode.tickFailed;
}

/** The exit code for an error code, also as read back from `--json` output (`{ error: { code } }`); unknown codes are 1. */
export function exitCodeForErrorCode(code: string): ExitCode {
  switch (code) {
    case 'CONFIG_INVALID':
    case 'PATTERN_NOT_FOUND':
    case 'BACKEND_NOT_FOUND':
    case 'PRECONDITION_FAILED':
    case 'USAGE':
    case 'RECORDING_INVALID':
      return ExitCode.configError;
    case 'BUDGET_EXHAUSTED':
    case 'PAUSED':
      return ExitCode.halted;
    case 'SANDBOX_UNAVAILABLE':
      return ExitCode.needsHuman;
    case 'LEASE_HELD':
      return ExitCode.leaseHeld;
    default:
      return ExitCode.tickFailed;
  }
}
