/**
 * Waits that hold on a loaded machine. A test waits on an event, or on progress: a count that must reach a target
 * fails only when it stops moving for `stallMs`, not after a fixed wall time that assumed an idle machine (a fleet
 * of 200 ticks that takes 30 s idle takes minutes under 4× CPU load, and still finishes). The test's own timeout
 * (vitest.config.ts) is the ceiling for a hang.
 */

export interface ProgressWait {
  /** Fails when the count has not grown for this long (default 120 s). */
  stallMs?: number;
  /** Polls this often (default 250 ms: a count of ticks that take seconds; each poll is a query in the test process and the database). */
  everyMs?: number;
  /** Called before every poll; throw to stop early (e.g. `expect(failures).toEqual([])`). */
  check?: () => void;
  /** What to say when it stalls: the state worth seeing (open rows, a log tail). */
  explain?: (reached: number) => Promise<string> | string;
}

/**
 * Resolves once `count()` reaches `target`; rejects with `explain`'s text when the count stalls.
 *
 * @example
 * ```ts
 * await waitForProgress(() => finishedTicks(), 200, { explain: async (done) => `${done} of 200 ticks finished` });
 * ```
 */
export async function waitForProgress(count: () => Promise<number>, target: number, options: ProgressWait = {}): Promise<number> {
  const stallMs = options.stallMs ?? 120_000;
  let best = -1;
  let movedAt = Date.now();
  for (;;) {
    options.check?.();
    const reached = await count();
    if (reached >= target) return reached;
    if (reached > best) {
      best = reached;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > stallMs) {
      const explained = options.explain ? await options.explain(reached) : `${reached} of ${target}`;
      throw new Error(`timed out: no progress for ${Math.round(stallMs / 1000)} s — ${explained}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 250));
  }
}
