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
  | 'USAGE'
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

/** Documented process exit codes. */
export const ExitCode = {
  ok: 0,
  tickFailed: 1,
  halted: 2,
  configError: 3,
  leaseHeld: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export function exitCodeFor(error: unknown): ExitCode {
  if (!isLoopRuntimeError(error)) return ExitCode.tickFailed;
  switch (error.code) {
    case 'CONFIG_INVALID':
    case 'PATTERN_NOT_FOUND':
    case 'BACKEND_NOT_FOUND':
    case 'USAGE':
      return ExitCode.configError;
    case 'BUDGET_EXHAUSTED':
    case 'PAUSED':
    case 'SANDBOX_UNAVAILABLE':
      return ExitCode.halted;
    case 'LEASE_HELD':
      return ExitCode.leaseHeld;
    default:
      return ExitCode.tickFailed;
  }
}
