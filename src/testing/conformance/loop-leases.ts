/**
 * The loop-lease contract with fencing, as a test suite: one holder per loop,
 * takeover only after `staleMs` by the injected clock, and — the point of
 * fencing — a holder that stalled past its stale time and was taken over
 * learns it (`stillHeld()` false) before its next write, while the new
 * holder's fencing number is greater; its late release frees nothing. Each
 * "taken over" case has its allowed twin (a holder within its time keeps the
 * lease and the newcomer is refused), so "refuse everything" fails too.
 *
 * @example
 * ```ts
 * describeLoopLeasesConformance('PostgresLoopLeases', {
 *   async create({ staleMs }) {
 *     const leases = new PostgresLoopLeases({ database, clock, scope, staleMs });
 *     return { acquire: async (request) => { const taken = await leases.acquire(request); return taken.ok ? { ok: true, lease: taken } : { ok: false }; }, advance: (ms) => clock.advance(ms) };
 *   },
 * });
 * ```
 */
import { describe, expect, it } from 'vitest';

/** A held loop lease as every store hands it to a tick. */
export interface FencedLoopLease {
  readonly fence: number;
  stillHeld(): Promise<boolean>;
  release(): Promise<void>;
}

export interface LoopLeasesSubject {
  /** Takes `patternId`'s lease for `holder` (another process, as far as the lease can tell), or is refused. */
  acquire(request: { patternId: string; holder: string; tickId: string }): Promise<{ ok: true; lease: FencedLoopLease } | { ok: false }>;
  /** Moves the clock every participant reads. */
  advance(ms: number): void;
  dispose?(): Promise<void>;
}

export interface LoopLeasesConformanceOptions {
  create(setup: { staleMs: number }): Promise<LoopLeasesSubject>;
}

const STALE_MS = 60_000;

async function held(subject: LoopLeasesSubject, holder: string): Promise<FencedLoopLease> {
  const taken = await subject.acquire({ patternId: 'daily-triage', holder, tickId: `tick-${holder}` });
  expect(taken.ok, `${holder} should get the lease`).toBe(true);
  return (taken as { ok: true; lease: FencedLoopLease }).lease;
}

export function describeLoopLeasesConformance(name: string, options: LoopLeasesConformanceOptions): void {
  describe(`Loop leases conformance (fencing): ${name}`, () => {
    async function withSubject(body: (subject: LoopLeasesSubject) => Promise<void>): Promise<void> {
      const subject = await options.create({ staleMs: STALE_MS });
      try {
        await body(subject);
      } finally {
        await subject.dispose?.();
      }
    }

    it('lets one holder in; the next is refused until the release, then gets a greater fence', async () => {
      await withSubject(async (subject) => {
        const first = await held(subject, 'a');
        expect(await first.stillHeld()).toBe(true);
        expect((await subject.acquire({ patternId: 'daily-triage', holder: 'b', tickId: 't2' })).ok).toBe(false);
        // Other loops are independent.
        const other = await subject.acquire({ patternId: 'ci-sweeper', holder: 'b', tickId: 't3' });
        expect(other.ok).toBe(true);
        await first.release();
        expect(await first.stillHeld()).toBe(false);
        const second = await held(subject, 'b');
        expect(second.fence).toBeGreaterThan(first.fence);
        await second.release();
        if (other.ok) await other.lease.release();
      });
    });

    it('fences out a stalled holder taken over after its stale time: its check says lost, its release frees nothing', async () => {
      await withSubject(async (subject) => {
        const stalled = await held(subject, 'a');
        subject.advance(STALE_MS + 5_000);
        const next = await held(subject, 'b');
        expect(next.fence).toBeGreaterThan(stalled.fence);
        expect(await stalled.stillHeld()).toBe(false);
        expect(await next.stillHeld()).toBe(true);
        // The stalled holder's late release leaves the new holder's lease in place.
        await stalled.release();
        expect(await next.stillHeld()).toBe(true);
        expect((await subject.acquire({ patternId: 'daily-triage', holder: 'c', tickId: 't3' })).ok).toBe(false);
        await next.release();
      });
    });

    it('the allowed twin: a holder within its stale time keeps the lease, the newcomer is refused', async () => {
      await withSubject(async (subject) => {
        const holder = await held(subject, 'a');
        subject.advance(STALE_MS - 10_000);
        expect((await subject.acquire({ patternId: 'daily-triage', holder: 'b', tickId: 't2' })).ok).toBe(false);
        expect(await holder.stillHeld()).toBe(true);
        // Stale but not taken over: still held (no one else acted).
        subject.advance(20_000);
        expect(await holder.stillHeld()).toBe(true);
        await holder.release();
      });
    });
  });
}
