/**
 * The connection string a worker gives DBOS for its system database. DBOS sets
 * `idle_in_transaction_session_timeout` (its default 60 s) on every new pool connection with a query it does not
 * await, so pg's next query on that connection starts while the first is still running, and every worker
 * printed pg's "Calling client.query() when the client is already executing a query" deprecation (pg 9 makes it
 * an error). Set in the connection string's `options` instead, the server applies it at session start, and DBOS
 * leaves it alone (`setsIdleTransactionTimeout`): the same protection, no extra query.
 */

/** DBOS's own default: a session left idle inside an open transaction this long is ended, releasing its locks. */
export const IDLE_TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * `url` with `-c idle_in_transaction_session_timeout=<ms>` in its `options` parameter, unless the URL sets it.
 *
 * @example
 * ```ts
 * systemDatabaseUrl('postgresql://loop@db:5432/fleet');
 * // 'postgresql://loop@db:5432/fleet?options=-c+idle_in_transaction_session_timeout%3D60000'
 * ```
 */
export function systemDatabaseUrl(url: string, timeoutMs = IDLE_TRANSACTION_TIMEOUT_MS): string {
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options') ?? '';
  if (options.includes('idle_in_transaction_session_timeout')) return url;
  parsed.searchParams.set('options', `${options ? `${options} ` : ''}-c idle_in_transaction_session_timeout=${timeoutMs}`);
  return parsed.toString();
}
