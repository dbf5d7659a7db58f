/**
 * `status`'s wiring: the project and the stores it reads, nothing more. The report is the runtime's own
 * (`Runtime.status()` calls the same `loopStatus` over the same `openProjectStores`, so files or the fleet's
 * Postgres are chosen alike), but `status` is the everyday command and the whole runtime — ~30 methods, the
 * redaction wrapper, ~10 KB of bundle — was built for this one call (docs/design/build.md "Fourth pass").
 * Nothing here writes, so there is nothing to redact or to keep out of the user's commits (runtime.ts's
 * `NOT_REDACTED` says the same for `Runtime.status()`).
 *
 * @example
 * ```ts
 * const read = await readStatus({ cwd: '/repo', env: process.env, clock: systemClock });
 * if (read.ok) console.log(read.value.loops.map((loop) => `${loop.id} ${loop.spentToday}`));
 * ```
 */
import type { Diagnostic } from '../core/config/diagnostics.js';
import { loadProject } from '../project/load-project.js';
import { loopStatus, type LoopStatusReport } from '../use-cases/status.js';
import type { OpenRuntimeOptions } from './runtime-contract.js';
import { openProjectStores } from './stores/project-stores.js';

/** Loads the repository's configuration and reports every configured loop, or returns the configuration's issues. */
export async function readStatus(options: Pick<OpenRuntimeOptions, 'cwd' | 'env' | 'clock'>): Promise<{ ok: true; value: LoopStatusReport } | { ok: false; issues: Diagnostic[] }> {
  const loaded = await loadProject(options.cwd);
  if (!loaded.ok) return { ok: false, issues: loaded.issues };
  const stores = await openProjectStores(loaded.project, options);
  return { ok: true, value: await loopStatus(loaded.project, { clock: options.clock, env: options.env, stores }) };
}
