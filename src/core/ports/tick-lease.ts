/**
 * Optional: the loop lease the tick runs under, as the engine sees it. The
 * engine asks `stillHeld()` before every side effect on shared state (one
 * choke point: `fenceTickPorts`), so a tick whose lease was taken over —
 * its process stalled past the stale time, another process now ticks the
 * loop — stops before its next write and ends `halted` with reason
 * `lease-lost`.
 *
 * @example
 * ```ts
 * const lease: TickLease = { specificationVersion: 'tick-lease-v1', fence: 7, stillHeld: async () => true };
 * new LoopEngine(plan, { ...ports, lease });
 * ```
 */
export interface TickLease {
  readonly specificationVersion: 'tick-lease-v1';
  /** The fencing number the lease was issued with: strictly greater than every earlier holder's of the same lease. */
  readonly fence: number;
  /** True while no later holder has taken the lease (a stale lease no one took over is still held). */
  stillHeld(): Promise<boolean>;
}
