/**
 * The ItemLeases contract as a test suite: one holder per item at a time
 * (another loop, the same loop's next tick, another process), independent
 * items, takeover only after `staleMs` by the injected clock, and a release
 * that is idempotent and never frees a lease someone else took over.
 *
 * @example
 * ```ts
 * describeItemLeasesConformance('MemoryItemLeases', {
 *   async create({ staleMs }) {
 *     const clock = new FixedClock();
 *     const leases = new MemoryItemLeases({ clock, staleMs });
 *     return { participant: () => leases, advance: (ms) => clock.advance(ms) };
 *   },
 * });
 * ```
 */
import { describe, expect, it } from 'vitest';
import type { ItemLeaseResult, ItemLeases } from '../../core/ports/index.js';

export interface ItemLeasesSubject {
  /** Another holder sharing the same leases (another loop, or the same loop's next tick). */
  participant(): ItemLeases;
  /** Moves the clock every participant reads. */
  advance(ms: number): void;
  /**
   * Optional: asks a real second OS process to acquire, then release at once
   * when it got the lease. Resolves with what that process got.
   */
  acquireInOtherProcess?(request: { itemKey: string; patternId: string; tickId: string }): Promise<{ ok: boolean; holder?: string }>;
  dispose?(): Promise<void>;
}

export interface ItemLeasesConformanceOptions {
  create(setup: { staleMs: number }): Promise<ItemLeasesSubject>;
}

const STALE_MS = 60_000;
/** Real time a test may take without making a file lease look older than the fake clock says. */
const REAL_TIME_MARGIN_MS = 5_000;

function expectHeld(result: ItemLeaseResult): asserts result is Extract<ItemLeaseResult, { ok: true }> {
  expect(result.ok, result.ok ? '' : result.message).toBe(true);
}

export function describeItemLeasesConformance(name: string, options: ItemLeasesConformanceOptions): void {
  describe(`ItemLeases conformance: ${name}`, () => {
    async function withSubject(body: (subject: ItemLeasesSubject) => Promise<void>): Promise<void> {
      const subject = await options.create({ staleMs: STALE_MS });
      try {
        await body(subject);
      } finally {
        await subject.dispose?.();
      }
    }

    it('declares item-leases-v1', async () => {
      await withSubject(async (subject) => expect(subject.participant().specificationVersion).toBe('item-leases-v1'));
    });

    it('lets one holder in; the next is refused with the holder named, until the release', async () => {
      await withSubject(async (subject) => {
        const [repair, triage] = [subject.participant(), subject.participant()];
        const first = await repair.acquire({ itemKey: 'issue#7', patternId: 'issue-pr-repair', tickId: 't1' });
        expectHeld(first);
        const refused = await triage.acquire({ itemKey: 'issue#7', patternId: 'issue-triage', tickId: 't2' });
        expect(refused).toMatchObject({ ok: false, holder: 'issue-pr-repair' });
        expect(refused.ok ? '' : refused.message).toContain('issue#7');
        // The same loop's next tick is refused too: one holder, not one per loop.
        expect((await repair.acquire({ itemKey: 'issue#7', patternId: 'issue-pr-repair', tickId: 't3' })).ok).toBe(false);
        await first.release();
        const after = await triage.acquire({ itemKey: 'issue#7', patternId: 'issue-triage', tickId: 't4' });
        expectHeld(after);
        await after.release();
      });
    });

    it('keeps items independent, whatever characters their keys hold', async () => {
      await withSubject(async (subject) => {
        const leases = subject.participant();
        const keys = ['issue#7', 'issue#70', 'ci:build@main', 'a/b', 'a_b', '../../etc/passwd', 'ünïcødé ключ'];
        const held = [];
        for (const itemKey of keys) {
          const result = await leases.acquire({ itemKey, patternId: 'loop', tickId: 't1' });
          expectHeld(result);
          held.push(result);
        }
        for (const itemKey of keys) expect((await subject.participant().acquire({ itemKey, patternId: 'other', tickId: 't2' })).ok).toBe(false);
        for (const lease of held) await lease.release();
      });
    });

    it('holds until staleMs by the clock, then lets another take it over', async () => {
      await withSubject(async (subject) => {
        const hung = await subject.participant().acquire({ itemKey: 'issue#9', patternId: 'hung-loop', tickId: 't1' });
        expectHeld(hung);
        const next = subject.participant();
        subject.advance(STALE_MS - REAL_TIME_MARGIN_MS);
        expect(await next.acquire({ itemKey: 'issue#9', patternId: 'next-loop', tickId: 't2' })).toMatchObject({ ok: false, holder: 'hung-loop' });
        subject.advance(2 * REAL_TIME_MARGIN_MS);
        const taken = await next.acquire({ itemKey: 'issue#9', patternId: 'next-loop', tickId: 't3' });
        expectHeld(taken);
        // The hung holder's late release must not free the lease the next loop now holds.
        await hung.release();
        expect(await subject.participant().acquire({ itemKey: 'issue#9', patternId: 'third-loop', tickId: 't4' })).toMatchObject({ ok: false, holder: 'next-loop' });
        await taken.release();
      });
    });

    it('release is idempotent', async () => {
      await withSubject(async (subject) => {
        const leases = subject.participant();
        const first = await leases.acquire({ itemKey: 'issue#1', patternId: 'a', tickId: 't1' });
        expectHeld(first);
        await first.release();
        const second = await subject.participant().acquire({ itemKey: 'issue#1', patternId: 'b', tickId: 't2' });
        expectHeld(second);
        await first.release();
        expect(await subject.participant().acquire({ itemKey: 'issue#1', patternId: 'c', tickId: 't3' })).toMatchObject({ ok: false, holder: 'b' });
        await second.release();
      });
    });

    it('a second OS process cannot take a held lease, and can once it is released', async (context) => {
      await withSubject(async (subject) => {
        const acquireInOtherProcess = subject.acquireInOtherProcess?.bind(subject);
        if (!acquireInOtherProcess) {
          context.skip('this implementation is in-process only: it has no second process to test');
          return;
        }
        const held = await subject.participant().acquire({ itemKey: 'issue#42', patternId: 'this-process', tickId: 't1' });
        expectHeld(held);
        expect(await acquireInOtherProcess({ itemKey: 'issue#42', patternId: 'other-process', tickId: 't2' })).toMatchObject({ ok: false, holder: 'this-process' });
        await held.release();
        expect(await acquireInOtherProcess({ itemKey: 'issue#42', patternId: 'other-process', tickId: 't3' })).toMatchObject({ ok: true });
      });
    });
  });
}
