/**
 * The Postgres store and the fleet need `pg` and `@dbos-inc/dbos-sdk`, which
 * are optional peer dependencies: most users never install them. Every path
 * that loads fleet code goes through `loadFleetModule`, so a missing package is
 * one coded error naming what to install, never `Cannot find module 'pg'` with
 * a require stack.
 */
import { LoopRuntimeError } from '../../core/errors.js';

/** The optional packages the fleet store and workers load. */
export const FLEET_PACKAGES = ['pg', '@dbos-inc/dbos-sdk'] as const;

function missingPackage(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return null;
  const message = error instanceof Error ? error.message : String(error);
  return FLEET_PACKAGES.find((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`)) ?? null;
}

/**
 * Loads a module of the fleet or the Postgres store; a missing optional package becomes PRECONDITION_FAILED (exit 3).
 *
 * @example
 * ```ts
 * const { postgresStores } = await loadFleetModule(() => import('./postgres-stores.js'), 'LOOP_RUNTIME_DATABASE_URL is set');
 * ```
 */
export async function loadFleetModule<T>(load: () => Promise<T>, why: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const name = missingPackage(error);
    if (!name) throw error;
    throw new LoopRuntimeError('PRECONDITION_FAILED', `The Postgres store needs the package "${name}", which is not installed (${why}).`, {
      cause: error,
      fix: `install the fleet's packages beside loop-runtime: npm install ${FLEET_PACKAGES.join(' ')} — or unset LOOP_RUNTIME_DATABASE_URL (and remove store: from LOOP.md) to use the file store.`,
      detail: { missing: name, packages: [...FLEET_PACKAGES] },
    });
  }
}
