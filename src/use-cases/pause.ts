/**
 * Pause and resume (`loop-runtime pause`, the console): writes the kill
 * switch through the project's store every tick reads, so the next phase of
 * any tick — in any checkout or machine sharing the store — stops. Only loop
 * ids the configuration knows are accepted.
 */
import { LoopRuntimeError } from '../core/errors.js';
import type { Clock, PauseSource } from '../core/ports/index.js';
import { resolvePlan, type LoadedProject } from '../project/load-project.js';
import type { ProjectStores } from '../composition/stores/project-stores.js';
import { redactorFor } from '../composition/wiring.js';

export interface PauseOptions {
  env: Record<string, string | undefined>;
  stores: ProjectStores;
  clock: Clock;
  /** Who pauses or resumes (`user@host`, `the console (serve)`). */
  by: string;
  reason?: string;
}

/**
 * Sets (`paused`) or clears the switch for every loop or one; returns the forms still set afterwards.
 * Resuming one loop also clears its halt that needs a human (as `loop-runtime resume <id>` does), recorded as
 * resumed `by`.
 */
export async function setPause(project: LoadedProject, options: PauseOptions, paused: boolean, loop?: string): Promise<PauseSource[]> {
  if (loop !== undefined && !project.configuredLoops.includes(loop)) {
    throw new LoopRuntimeError('USAGE', `"${loop}" is not a configured loop.`, { fix: `use one of: ${project.configuredLoops.join(', ') || '(none configured)'}.` });
  }
  const resolved = loop ? await resolvePlan(project, loop) : null;
  // A loop whose configuration does not resolve can still be paused (that is when an operator wants to stop it).
  const target = loop ? (resolved?.ok ? resolved.plan : { patternId: loop }) : null;
  const killSwitch = options.stores.killSwitch(target, { env: options.env, redact: redactorFor(options.env, project.root) });
  const at = options.clock.now();
  if (!paused && loop) await killSwitch.clearHalt({ by: options.by, at });
  if (paused) await killSwitch.pause({ ...(loop ? { patternId: loop } : {}), by: options.by, at, ...(options.reason ? { reason: options.reason } : {}) });
  else await killSwitch.resume(loop ? { patternId: loop } : {});
  return killSwitch.sources();
}
