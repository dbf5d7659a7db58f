/**
 * The one place a tick's lease is checked: every port method that writes
 * shared state — a budget reservation, a reconciliation, an attempt, a halt,
 * the state file and run log, an item lease, a commit, a delivery — first
 * asks the tick's lease whether it is still held, and throws `LeaseLostError`
 * when a later holder has it. The engine turns that into the tick's outcome
 * (`halted`, reason `lease-lost`) and writes nothing more.
 *
 * Settling a call is let through: the spend already happened, and recording
 * it is what keeps the cap honest (a refused settle would leave the whole
 * reservation open, counted as spent until the next holder reconciles it).
 * Reads (status, history, the kill switch's check) are not fenced.
 */
import type { EnginePorts } from './engine-ports.js';
import type { TickLease } from '../ports/index.js';

/** Thrown by a fenced port when the tick's lease is no longer held; the engine ends the tick `lease-lost`. */
export class LeaseLostError extends Error {
  readonly code = 'LEASE_LOST' as const;
  constructor(
    readonly operation: string,
    readonly fence: number,
  ) {
    super(`The tick's loop lease (fence ${fence}) was taken over by a later holder before ${operation}; this tick stopped there and wrote nothing more.`);
    this.name = 'LeaseLostError';
  }
}

/** The writes of each port the fence guards (by method name). */
const FENCED = {
  budget: ['reserve', 'reconcileAbandoned'],
  attempts: ['append'],
  killSwitch: ['halt'],
  state: ['recordTick', 'note'],
  items: ['acquire'],
  workspace: ['commit'],
  delivery: ['deliver'],
} as const;

function fenced<T extends object>(port: T, methods: readonly string[], name: string, guard: (operation: string) => Promise<void>): T {
  return new Proxy(port, {
    get(target, property) {
      // The target as receiver: an adapter's getters and private fields see the adapter, not the proxy.
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || !methods.includes(property)) return (value as (...args: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        await guard(`${name}.${property}`);
        return Reflect.apply(value, target, args) as unknown;
      };
    },
  });
}

/**
 * The ports with every shared write behind the lease's `stillHeld()`.
 *
 * @example
 * ```ts
 * const ports = fenceTickPorts(wired, lease); // LoopEngine does this itself when `ports.lease` is set
 * ```
 */
export function fenceTickPorts(ports: EnginePorts, lease: TickLease): EnginePorts {
  let lost = false;
  const guard = async (operation: string) => {
    // Once lost, always lost: a lease is never handed back to a holder it was taken from.
    if (lost || !(await lease.stillHeld())) {
      lost = true;
      throw new LeaseLostError(operation, lease.fence);
    }
  };
  const result: EnginePorts = { ...ports };
  for (const [name, methods] of Object.entries(FENCED) as [keyof typeof FENCED, readonly string[]][]) {
    const port = ports[name];
    if (port) (result as unknown as Record<string, object>)[name] = fenced(port, methods, name, guard);
  }
  return result;
}

export function isLeaseLost(error: unknown): error is LeaseLostError {
  return error instanceof LeaseLostError;
}
