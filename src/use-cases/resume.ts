/**
 * `loop-runtime resume <id>`: clears a halt that needs a human (a backend
 * that stopped, a budget overrun), recording who and when, closes an open
 * circuit breaker (a reset marker in the loop's attempts ends the run of
 * failures it counts, so the attempts stay as history), and lifts the loop's
 * own pause — all through the project's store, so a resume from any
 * checkout or machine reaches every process. The forms only humans clear
 * (the env variable, a state-file line, a pause of every loop) are
 * reported, never changed.
 */
import { hostname, userInfo } from 'node:os';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { Clock, LoopHalt, PauseSource } from '../core/ports/index.js';
import { circuitResetRecord, circuitState } from '../core/engine/circuit-breaker.js';
import type { ProjectStores } from '../composition/stores/project-stores.js';
import { redactorFor } from '../composition/wiring.js';

export interface ResumeLoopResult {
  loop: string;
  /** The halt cleared, or null when the loop was not halted. */
  cleared: LoopHalt | null;
  /** Who resumed it (`user@host`) and when (ISO). */
  by: string;
  at: string;
  /** The open circuit breaker's reason, now closed; null when the circuit was closed. */
  circuitCleared: string | null;
  /** Whether the loop's own pause (its pause file, or its row in the fleet store) was lifted. */
  unpaused: boolean;
  /** The forms of the kill switch still set afterwards (the loop stays stopped while any is). */
  stillPausedBy: PauseSource[];
}

/**
 * @example
 * ```ts
 * const result = await resumeLoop(plan, { clock: systemClock, env: process.env, stores });
 * result.cleared?.reason; // → 'backend-stopped'
 * ```
 */
export async function resumeLoop(plan: ExecutionPlan, options: { clock: Clock; env: Record<string, string | undefined>; stores: ProjectStores; by?: string }): Promise<ResumeLoopResult> {
  const id = plan.pattern.id;
  const redact = redactorFor(options.env, null);
  const killSwitch = options.stores.killSwitch(plan, { env: options.env, redact });
  const now = options.clock.now();
  const by = redact(options.by ?? actor(options.env));
  const cleared = await killSwitch.clearHalt({ by, at: now });
  const attempts = options.stores.attempts(plan, plan.backend.name, redact);
  const circuit = circuitState(await attempts.history(), plan.attempts, id);
  if (circuit.open) await attempts.append(circuitResetRecord({ patternId: id, by, at: now, tickId: `resume-${new Date(now).toISOString()}` }));
  const paused = (await killSwitch.sources()).some((source) => source.loop === id);
  if (paused) await killSwitch.resume({ patternId: id });
  return { loop: id, cleared, circuitCleared: circuit.open ? circuit.message : null, by, at: new Date(now).toISOString(), unpaused: paused, stillPausedBy: await killSwitch.sources() };
}

/** Who is resuming: the CI actor or the login name, at this host (the host alone when no user name is known). */
export function actor(env: Record<string, string | undefined>): string {
  const user = env['GITHUB_ACTOR'] || env['USER'] || env['LOGNAME'] || env['USERNAME'] || loginName();
  return user ? `${user}@${hostname()}` : hostname();
}

function loginName(): string {
  try {
    return userInfo().username;
  } catch {
    return ''; // no passwd entry for this uid (a container): the host alone
  }
}
