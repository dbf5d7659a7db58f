/**
 * Maps what `pg` throws to a coded `LoopRuntimeError` that names the
 * database (never its password) and the fix. A store that cannot be reached
 * is an error, never an empty ledger.
 */
import { LoopRuntimeError, type LoopErrorCode } from '../../core/errors.js';

/** `postgresql://user@host:port/db` with any password removed, for messages. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return `${parsed.protocol}//${parsed.username ? `${parsed.username}@` : ''}${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the configured database (LOOP_RUNTIME_DATABASE_URL is not a URL)';
  }
}

function errorCodeOf(error: unknown): string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const code = Reflect.get(error, 'code');
  return typeof code === 'string' ? code : undefined;
}

/** SQLSTATE 40001/40P01: the transaction lost a race and may simply be run again. */
export function isSerializationFailure(error: unknown): boolean {
  const code = errorCodeOf(error);
  return code === '40001' || code === '40P01';
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '3D000', '28P01', '28000']);

function isConnectionError(error: unknown): boolean {
  const code = errorCodeOf(error);
  if (code && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  const message = error instanceof Error ? error.message : '';
  // 'timeout expired': pg's client gave up opening the connection (connectionTimeoutMillis).
  return /Connection terminated|connection timeout|timeout expired|Client has encountered a connection error|not queryable/i.test(message);
}

/**
 * The coded error for a failed store operation.
 *
 * @example
 * ```ts
 * throw storeError('BUDGET_LEDGER_UNREADABLE', url, 'read the spend of daily-triage', caught);
 * ```
 */
export function storeError(code: LoopErrorCode, url: string, action: string, cause: unknown): LoopRuntimeError {
  if (cause instanceof LoopRuntimeError) return cause;
  const database = describeDatabase(url);
  const detail = cause instanceof Error ? cause.message : String(cause);
  const sqlState = errorCodeOf(cause);
  if (isConnectionError(cause)) {
    return new LoopRuntimeError(code, `Could not ${action}: the fleet store at ${database} cannot be reached (${detail}).`, {
      cause,
      retryable: true,
      detail: { database, sqlState },
      fix: 'start PostgreSQL or correct LOOP_RUNTIME_DATABASE_URL (or `store:` in the loop-runtime: block); nothing was read as empty.',
    });
  }
  if (sqlState?.startsWith('23')) {
    return new LoopRuntimeError(code, `Could not ${action}: the fleet store at ${database} refused the write (constraint violation ${sqlState}: ${detail}).`, {
      cause,
      detail: { database, sqlState },
      fix: 'the stored rows disagree with this worker: check that every worker runs the same loop-runtime version, and inspect the row named above.',
    });
  }
  return new LoopRuntimeError(code, `Could not ${action} in the fleet store at ${database}: ${detail}${sqlState ? ` (SQLSTATE ${sqlState})` : ''}.`, {
    cause,
    detail: { database, sqlState },
    fix: 'check the database server log; if the schema was changed by hand, restore it or point the store at a fresh database.',
  });
}
