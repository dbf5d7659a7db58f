/**
 * Riding out a fleet store outage (a Postgres restart) inside a tick's step:
 * the store's calls are single transactions that either happened or did
 * not, so a call that failed to connect is made again until the database is
 * back (up to two minutes), and the tick carries on where it was.
 */
import { isLoopRuntimeError } from '../core/errors.js';

/** How long a step waits out an unreachable fleet store (a Postgres restart) before its error stands. */
const OUTAGE_MS = 120_000;

/** A store error saying the database cannot be reached (not a refused write, not a corrupt row). */
function isStoreOutage(error: unknown): boolean {
  if (!isLoopRuntimeError(error) || !error.retryable) return false;
  const detail = error.detail as { database?: unknown } | undefined;
  return typeof detail?.database === 'string';
}

/**
 * Runs a port call, retrying it while the fleet store is unreachable: the store's calls are single transactions
 * that either happened or did not, so a call that failed to connect is safely made again, and the tick carries on
 * where it was instead of recording an outage as its result.
 *
 * @example
 * ```ts
 * const step: StepRunner = (name, body) => DBOS.runStep(() => throughOutage(body), { name });
 * ```
 */
export async function throughOutage<T>(body: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + OUTAGE_MS;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await body();
    } catch (error) {
      if (!isStoreOutage(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** attempt)));
    }
  }
}
