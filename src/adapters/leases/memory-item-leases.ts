/**
 * The ItemLeases port's memory twin: one holder per item key, by the injected
 * clock. Holders here do not refresh, so a lease held longer than `staleMs`
 * counts as abandoned and can be taken over — advance the clock to simulate a
 * hung holder, as a file lease whose holder stopped refreshing. Pure.
 */
import type { Clock, ItemLeaseResult, ItemLeases } from '../../core/ports/index.js';

export interface MemoryItemLeasesOptions {
  clock: Clock;
  /** A lease older than this may be taken over (default 15 minutes, as the file leases). */
  staleMs?: number;
}

interface Held {
  patternId: string;
  tickId: string;
  since: number;
  token: number;
}

/**
 * Shares its table between participants: call `participant()` for another loop.
 *
 * @example
 * ```ts
 * const leases = new MemoryItemLeases({ clock: new FixedClock() });
 * const first = await leases.acquire({ itemKey: 'issue#7', patternId: 'a', tickId: 't1' }); // ok
 * const second = await leases.acquire({ itemKey: 'issue#7', patternId: 'b', tickId: 't2' }); // { ok: false, holder: 'a' }
 * ```
 */
export class MemoryItemLeases implements ItemLeases {
  readonly specificationVersion = 'item-leases-v1' as const;
  /** What happened, in order: `acquired|refused|recovered|released <itemKey> by <patternId>`. */
  readonly log: string[] = [];
  private readonly held = new Map<string, Held>();
  private readonly clock: Clock;
  private readonly staleMs: number;
  private tokens = 0;

  constructor(options: MemoryItemLeasesOptions) {
    this.clock = options.clock;
    this.staleMs = options.staleMs ?? 15 * 60_000;
  }

  async acquire(request: { itemKey: string; patternId: string; tickId: string }): Promise<ItemLeaseResult> {
    const now = this.clock.now();
    const current = this.held.get(request.itemKey);
    if (current && now - current.since <= this.staleMs) {
      this.log.push(`refused ${request.itemKey} by ${request.patternId}`);
      return { ok: false, holder: current.patternId, message: `Item ${request.itemKey} is being worked on by ${current.patternId} (tick ${current.tickId}).` };
    }
    if (current) this.log.push(`recovered ${request.itemKey} from ${current.patternId}`);
    const mine: Held = { patternId: request.patternId, tickId: request.tickId, since: now, token: ++this.tokens };
    this.held.set(request.itemKey, mine);
    this.log.push(`acquired ${request.itemKey} by ${request.patternId}`);
    let released = false;
    return {
      ok: true,
      release: async () => {
        if (released) return;
        released = true;
        // Never free a lease someone else took over after ours went stale.
        if (this.held.get(request.itemKey)?.token === mine.token) this.held.delete(request.itemKey);
        this.log.push(`released ${request.itemKey} by ${request.patternId}`);
      },
    };
  }
}
