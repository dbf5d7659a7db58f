/**
 * Pause and resume from the console: writes the kill switch through the
 * adapter every tick reads (`FileKillSwitch`), so the next phase of any tick
 * on this machine stops. Only loop ids the configuration knows are accepted.
 */
import { LoopRuntimeError } from '../core/errors.js';
import { FileKillSwitch, type PauseSource } from '../adapters/kill-switch/kill-switch.js';
import { resolvePlan, type LoadedProject } from '../project/load-project.js';
import type { Clock } from '../core/ports/index.js';
import { redactorFor } from './wiring.js';

/**
 * Sets (`paused`) or clears the switch for every loop or one; returns the forms still set afterwards.
 * Resuming one loop also clears its halt that needs a human (as `loop-runtime resume <id>` does), recorded in
 * its run log as resumed `by` the console.
 */
export async function setPause(project: LoadedProject, env: Record<string, string | undefined>, paused: boolean, loop?: string, clock?: Clock): Promise<PauseSource[]> {
  if (loop !== undefined && !project.configuredLoops.includes(loop)) {
    throw new LoopRuntimeError('USAGE', `"${loop}" is not a configured loop.`, { fix: `use one of: ${project.configuredLoops.join(', ') || '(none configured)'}.` });
  }
  const resolved = loop ? await resolvePlan(project, loop) : null;
  const killSwitch = new FileKillSwitch({
    root: project.root,
    env,
    ...(loop ? { patternId: loop } : {}),
    ...(resolved?.ok ? { stateFile: resolved.plan.files.state, runLog: resolved.plan.files.runLog, redact: redactorFor(env, project.root) } : {}),
  });
  if (!paused && loop && clock) await killSwitch.clearHalt({ by: 'the console (serve)', at: clock.now() });
  if (paused) await killSwitch.pause(loop ? { patternId: loop } : {});
  else await killSwitch.resume(loop ? { patternId: loop } : {});
  return killSwitch.sources();
}
