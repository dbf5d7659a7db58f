/**
 * Which store a project's shared state lives in, decided from one setting:
 * `store:` in the root LOOP.md's `loop-runtime:` block, else the
 * `LOOP_RUNTIME_DATABASE_URL` environment variable, else files. The URL is
 * always read from the environment: a committed file only names the variable.
 */
import type { RuntimeSettings } from '../../core/config/schemas.js';
import { LoopRuntimeError } from '../../core/errors.js';

export const DATABASE_URL_VARIABLE = 'LOOP_RUNTIME_DATABASE_URL';

export type StoreChoice =
  | { kind: 'files'; reason: string }
  | { kind: 'postgres'; url: string; variable: string; scope: string | null; reason: string };

/**
 * Decides the store. Throws `CONFIG_INVALID` (exit 3) when the setting asks for Postgres and the variable it names
 * is unset or not a PostgreSQL URL: a fleet that silently fell back to files would overspend its shared cap.
 *
 * @example
 * ```ts
 * chooseStore({ version: 1, store: 'postgres' }, { LOOP_RUNTIME_DATABASE_URL: 'postgresql://loops@db/loops' });
 * // → { kind: 'postgres', url: 'postgresql://loops@db/loops', variable: 'LOOP_RUNTIME_DATABASE_URL', scope: null, reason: … }
 * ```
 */
export function chooseStore(settings: RuntimeSettings | null, env: Record<string, string | undefined>): StoreChoice {
  const store = settings?.store;
  if (store === 'files') return { kind: 'files', reason: 'store: files in LOOP.md' };
  if (store === undefined) {
    const url = env[DATABASE_URL_VARIABLE];
    if (!url) return { kind: 'files', reason: `no store: in LOOP.md and ${DATABASE_URL_VARIABLE} is not set` };
    return { kind: 'postgres', url: checkedUrl(url, DATABASE_URL_VARIABLE, 'is set'), variable: DATABASE_URL_VARIABLE, scope: null, reason: `${DATABASE_URL_VARIABLE} is set` };
  }
  const variable = store === 'postgres' ? DATABASE_URL_VARIABLE : store.url.slice('env:'.length);
  const scope = store === 'postgres' ? null : (store.scope ?? null);
  const written = store === 'postgres' ? 'store: postgres' : `store: { url: env:${variable} }`;
  const url = env[variable];
  if (!url) {
    throw new LoopRuntimeError('CONFIG_INVALID', `LOOP.md says ${written}, but ${variable} is not set, so there is no database to keep the loops' spend, attempts and leases in.`, {
      fix: `export ${variable}=postgresql://user@host:5432/loops (the password in ~/.pgpass or PGPASSWORD), or remove store: from LOOP.md to keep them in files.`,
    });
  }
  return { kind: 'postgres', url: checkedUrl(url, variable, `is named by ${written}`), variable, scope, reason: `${written} in LOOP.md` };
}

function checkedUrl(url: string, variable: string, why: string): string {
  if (/^postgres(ql)?:\/\//.test(url)) return url;
  throw new LoopRuntimeError('CONFIG_INVALID', `${variable} ${why}, but its value is not a PostgreSQL URL.`, {
    fix: `set ${variable} to postgresql://user@host:5432/database (or unset it to keep state in files).`,
  });
}
