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
    else running.delete(id);
  }
}

/** The ids of the workflows running in this process now. */
export function runningWorkflowIds(): Set<string> {
  return new Set(running.keys());
}
