/**
 * Whether a loop's circuit breaker is open, read from the store's attempt
 * ledger the tick itself reads, with the failures that opened it and the
 * command that closes it — for `status`, `doctor` and the console.
 */
import { circuitState, openingFailures, type CircuitFailure } from '../core/engine/circuit-breaker.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { AttemptRecord } from '../core/ports/index.js';
import type { ProjectStores } from '../composition/stores/project-stores.js';

export interface OpenCircuit {
  trigger: 'same-error' | 'consecutive-failures';
  message: string;
  /** The failed attempts that opened it, newest first. */
  failures: CircuitFailure[];
  /** The command that closes it. */
  fix: string;
}

/**
 * One reader per report: loops sharing an attempt ledger (one file, or the fleet store's scope) read it once.
 *
 * @example
 * ```ts
 * const circuits = circuitReader(stores);
 * (await circuits(plan))?.fix; // → 'loop-runtime resume ci-sweeper'
 * ```
 */
export function circuitReader(stores: ProjectStores): (plan: ExecutionPlan) => Promise<OpenCircuit | null> {
  const histories = new Map<string, Promise<readonly AttemptRecord[]>>();
  return async (plan) => {
    const key = stores.kind === 'files' ? plan.files.ledger : 'store';
    let history = histories.get(key);
    if (!history) histories.set(key, (history = stores.attempts(plan, plan.backend.name, (text) => text).history()));
    const records = await history;
    const state = circuitState(records, plan.attempts, plan.pattern.id);
    if (!state.open) return null;
    return { trigger: state.trigger, message: state.message, failures: openingFailures(records, plan.pattern.id), fix: `loop-runtime resume ${plan.pattern.id}` };
  };
}
