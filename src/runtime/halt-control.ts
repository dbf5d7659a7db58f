/**
 * `loop-runtime resume <id>`: clears a halt that needs a human (a backend
 * that stopped, a budget overrun), recording who and when in the loop's run
 * log, an open circuit breaker (a `noop` attempt record ends the run of
 * failures it counts, so the attempts stay as history), and the loop's own
 * pause file (what the console's Pause wrote). The
 * forms only humans clear (the env variable, a state-file line, the root
 * `loop-pause-all` that stops every loop) are reported, never changed.
 */
import { hostname } from 'node:os';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { Clock, LoopHalt } from '../core/ports/index.js';
import { FileKillSwitch, type PauseSource } from '../adapters/kill-switch/kill-switch.js';
import { FileAttemptLedger } from '../adapters/attempt-ledger/file-attempt-ledger.js';
import { circuitState } from '../core/engine/circuit-breaker.js';
import { redactorFor } from './wiring.js';

export interface ResumeLoopResult {
  loop: string;
  /** The halt cleared, or null when the loop was not halted. */
  cleared: LoopHalt | null;
  /** Who resumed it (`user@host`) and when (ISO). */
  by: string;
  at: string;
  /** The open circuit breaker's reason, now closed; null when the circuit was closed. */
  circuitCleared: string | null;
  /** Whether the loop's own pause file was removed. */
  unpaused: boolean;
  /** The forms of the kill switch still set afterwards (the loop stays stopped while any is). */
  stillPausedBy: PauseSource[];
}

/**
 * @example
 * ```ts
 * const result = await resumeLoop('/repo', plan, { clock: systemClock, env: process.env });
 * result.cleared?.reason; // → 'backend-stopped'
 * ```
 */
export async function resumeLoop(root: string, plan: ExecutionPlan, options: { clock: Clock; env: Record<string, string | undefined>; by?: string }): Promise<ResumeLoopResult> {
  const id = plan.pattern.id;
  const killSwitch = new FileKillSwitch({ root, stateFile: plan.files.state, env: options.env, patternId: id, runLog: plan.files.runLog, redact: redactorFor(options.env, root) });
  const now = options.clock.now();
  const by = redactorFor(options.env, root)(options.by ?? actor(options.env));
  const cleared = await killSwitch.clearHalt({ by, at: now });
  const attempts = new FileAttemptLedger({ root, file: plan.files.ledger, patternId: id, goal: plan.pattern.goal });
  const circuit = circuitState(await attempts.history(), plan.attempts, id);
  if (circuit.open) {
    await attempts.append({ patternId: id, itemKey: 'resume', tickId: `resume-${new Date(now).toISOString()}`, at: now, outcome: 'noop', error: `circuit reset by ${by}`, tokensUsed: 0 });
  }
  const paused = (await killSwitch.sources()).some((source) => source.kind === 'loop-file');
  if (paused) await killSwitch.resume({ patternId: id });
  return { loop: id, cleared, circuitCleared: circuit.open ? circuit.message : null, by, at: new Date(now).toISOString(), unpaused: paused, stillPausedBy: await killSwitch.sources() };
}

/** Who is resuming: the CI actor or the login name, at this host. */
function actor(env: Record<string, string | undefined>): string {
  const user = env['GITHUB_ACTOR'] ?? env['USER'] ?? env['LOGNAME'] ?? env['USERNAME'] ?? 'unknown';
  return `${user}@${hostname()}`;
}
