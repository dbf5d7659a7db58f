/**
 * The workflows running in this process, counted by the worker itself (DBOS
 * keeps its own map, but only behind its internal API). Every workflow a
 * worker registers — ticks and approval waits — runs its body through
 * `whileRunning`, so the orphan sweep never hands back a workflow that is
 * still running here.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';

const running = new Map<string, number>();
/**
 * Workflows whose body finished here, by when. DBOS writes a workflow's status after its body returns; until then
 * it is still PENDING under our executor, and a sweep in that gap would hand a finished tick back to its queue to run
 * again. Counted as running for `SETTLE_MS` after the body: a status write that takes longer than that failed (an
 * outage), and the workflow is an orphan the sweep may hand back.
 */
const finished = new Map<string, number>();
const SETTLE_MS = 60_000;

/**
 * Runs a workflow body counted as running under its workflow id.
 *
 * @example
 * ```ts
 * DBOS.registerWorkflow((input: Input) => whileRunning(() => body(input)), { name: 'loop-runtime.approval' });
 * ```
 */
export async function whileRunning<T>(body: () => Promise<T>, fallbackId?: string): Promise<T> {
  const id = DBOS.workflowID ?? fallbackId;
  if (!id) return body();
  running.set(id, (running.get(id) ?? 0) + 1);
  try {
    return await body();
  } finally {
    const count = (running.get(id) ?? 1) - 1;
    if (count > 0) running.set(id, count);
    else {
      running.delete(id);
      finished.set(id, Date.now());
    }
  }
}

/** The ids of the workflows running in this process now, and of those whose body finished here within `SETTLE_MS`. */
export function runningWorkflowIds(now: number = Date.now()): Set<string> {
  for (const [id, at] of finished) if (now - at > SETTLE_MS) finished.delete(id);
  return new Set([...running.keys(), ...finished.keys()]);
}
