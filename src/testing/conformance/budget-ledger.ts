/**
 * The budget-ledger-v2 contract as a vitest suite: run it against your own
 * ledger to prove it keeps the guarantees the BudgetBreaker relies on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isLoopRuntimeError } from '../../core/errors.js';
import type { AgentRole, BudgetLedger, ReservationRequest } from '../../core/ports/index.js';

/** One ledger under test, over storage the suite may reopen or damage. */
export interface BudgetLedgerSubject {
  ledger: BudgetLedger;
  /** A new ledger over the same storage, as after the process was killed. */
  reopen(): BudgetLedger | Promise<BudgetLedger>;
  /** Damages the storage so it cannot be read (only for ledgers declared `corruptible`). */
  corrupt?(): Promise<void>;
  /**
   * For ledgers declared `rehearsals`: a ledger over the same storage journalling for the mock backend (which counts
   * every backend's spend), and the removal of one loop's mock spend that `reset <id> --mock` calls.
   */
  rehearsal?: { mockLedger(): BudgetLedger | Promise<BudgetLedger>; remove(patternId: string): Promise<number> };
  cleanup?(): Promise<void>;
}

export interface BudgetLedgerConformanceOptions {
  /** The storage can be damaged (a file): then reading it must fail with `BUDGET_LEDGER_UNREADABLE`. */
  corruptible?: boolean;
  /** The storage tags spend with its backend and can remove one loop's mock spend (`subject.rehearsal`). */
  rehearsals?: boolean;
}

const DAY = '2026-11-21';
const NEXT_DAY = '2026-11-22';
const AT = Date.parse(`${DAY}T08:00:00Z`);

function request(tokens: number, overrides: Partial<ReservationRequest> = {}): ReservationRequest {
  return { at: AT, day: DAY, patternId: 'daily-triage', tickId: 'tick-1', phase: 'implement' satisfies AgentRole, tokens, ...overrides };
}

/**
 * @example
 * ```ts
 * describeBudgetLedgerConformance('MyLedger', async () => {
 *   const store = new MyStore();
 *   return { ledger: new MyLedger(store), reopen: () => new MyLedger(store) };
 * });
 * ```
 */
export function describeBudgetLedgerConformance(name: string, make: () => Promise<BudgetLedgerSubject>, options: BudgetLedgerConformanceOptions = {}): void {
  describe(`budget-ledger-v2 conformance: ${name}`, () => {
    const made: BudgetLedgerSubject[] = [];
    const subject = async () => {
      const created = await make();
      made.push(created);
      return created;
    };
    afterEach(async () => {
      for (const created of made.splice(0)) await created.cleanup?.();
    });

    it('declares budget-ledger-v2', async () => {
      expect((await subject()).ledger.specificationVersion).toBe('budget-ledger-v2');
    });

    it('counts an open reservation as spent in full', async () => {
      const { ledger } = await subject();
      const held = await ledger.open(request(40_000));
      expect(held).toMatchObject({ ...request(40_000), id: expect.any(String) });
      expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(40_000);
      expect(await ledger.openReservations({ day: DAY })).toEqual([held]);
    });

    it('replaces the open amount with the actual spend when settled', async () => {
      const { ledger } = await subject();
      const held = await ledger.open(request(40_000));
      expect(await ledger.settle(held.id, { at: AT + 1, tokens: 6_500, costUsd: 0.5 })).toEqual({ ok: true, id: held.id, tokens: 6_500, replaced: null });
      expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(6_500);
      expect(await ledger.openReservations({ day: DAY })).toEqual([]);
    });

    it('counts the actual spend of an overrun, above the reservation', async () => {
      const { ledger } = await subject();
      const held = await ledger.open(request(40_000));
      await ledger.settle(held.id, { at: AT + 1, tokens: 40_001, costUsd: null });
      expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(40_001);
    });

    it('still has a reservation open after a crash (a new instance on the same storage)', async () => {
      const created = await subject();
      const triage = await created.ledger.open(request(10_000, { phase: 'triage' }));
      await created.ledger.settle(triage.id, { at: AT + 1, tokens: 1_234, costUsd: null });
      const held = await created.ledger.open(request(40_000, { at: AT + 2 }));
      const after = await created.reopen();
      expect(await after.spentOn(DAY, 'daily-triage')).toBe(1_234 + 40_000);
      expect(await after.openReservations({ day: DAY, patternId: 'daily-triage' })).toEqual([held]);
    });

    it('reconcile closes an abandoned reservation once; a second close is refused as data', async () => {
      const created = await subject();
      const held = await created.ledger.open(request(40_000));
      const after = await created.reopen();
      const reason = 'tick crashed';
      expect(await after.reconcile(held.id, { at: AT + 5, tokens: 40_000, reason })).toEqual({ ok: true, id: held.id, tokens: 40_000, replaced: null });
      expect(await after.openReservations({ day: DAY })).toEqual([]);
      expect(await after.spentOn(DAY, 'daily-triage')).toBe(40_000);
      expect(await after.reconcile(held.id, { at: AT + 6, tokens: 1, reason })).toMatchObject({ ok: false, reason: 'already-closed', message: expect.stringContaining(held.id) });
      expect(await after.spentOn(DAY, 'daily-triage')).toBe(40_000);
    });

    it('reconciles with reported usage when the backend reported it', async () => {
      const { ledger } = await subject();
      const held = await ledger.open(request(40_000));
      await ledger.reconcile(held.id, { at: AT + 5, tokens: 9_000, reason: 'usage checkpoint' });
      expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(9_000);
    });

    it('lets a late settle replace a reconcile, and nothing replace a settle', async () => {
      const { ledger } = await subject();
      const held = await ledger.open(request(40_000));
      await ledger.reconcile(held.id, { at: AT + 5, tokens: 40_000, reason: 'thought dead' });
      expect(await ledger.settle(held.id, { at: AT + 6, tokens: 7_000, costUsd: null })).toEqual({ ok: true, id: held.id, tokens: 7_000, replaced: 'reconcile' });
      expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(7_000);
      expect(await ledger.settle(held.id, { at: AT + 7, tokens: 1, costUsd: null })).toMatchObject({ ok: false, reason: 'already-closed' });
      expect(await ledger.reconcile(held.id, { at: AT + 8, tokens: 1, reason: 'again' })).toMatchObject({ ok: false, reason: 'already-closed' });
      expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(7_000);
    });

    it('refuses to close a reservation it never opened, as data', async () => {
      const { ledger } = await subject();
      expect(await ledger.settle('r-never', { at: AT, tokens: 5, costUsd: null })).toMatchObject({ ok: false, reason: 'unknown-reservation', message: expect.stringContaining('r-never') });
      expect(await ledger.reconcile('r-never', { at: AT, tokens: 5, reason: 'x' })).toMatchObject({ ok: false, reason: 'unknown-reservation' });
      expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(0);
    });

    it('keeps days and loops apart', async () => {
      const { ledger } = await subject();
      const mine = await ledger.open(request(100));
      const other = await ledger.open(request(20, { patternId: 'ci-sweeper', tickId: 'tick-9' }));
      const tomorrow = await ledger.open(request(3, { at: AT + 86_400_000, day: NEXT_DAY }));
      await ledger.record({ at: AT + 86_400_001, day: NEXT_DAY, patternId: 'daily-triage', tickId: 'other-tool', phase: 'triage', tokens: 4, costUsd: null });
      expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(100);
      expect(await ledger.spentOn(DAY, 'ci-sweeper')).toBe(20);
      expect(await ledger.spentOn(NEXT_DAY, 'daily-triage')).toBe(3 + 4);
      expect(await ledger.spentOn(NEXT_DAY, 'ci-sweeper')).toBe(0);
      expect(await ledger.openReservations({ day: DAY, patternId: 'daily-triage' })).toEqual([mine]);
      expect(await ledger.openReservations({ day: DAY })).toEqual([mine, other]);
      expect(await ledger.openReservations({ day: NEXT_DAY })).toEqual([tomorrow]);
    });

    it('counts a reservation against the day it was opened, even when settled after midnight', async () => {
      const { ledger } = await subject();
      const late = await ledger.open(request(40_000, { at: Date.parse(`${DAY}T23:59:00Z`) }));
      const next = await ledger.open(request(500, { at: Date.parse(`${NEXT_DAY}T00:00:30Z`), day: NEXT_DAY, tickId: 'tick-2', phase: 'triage' }));
      await ledger.settle(late.id, { at: Date.parse(`${NEXT_DAY}T00:01:00Z`), tokens: 30_000, costUsd: null });
      expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(30_000);
      expect(await ledger.spentOn(NEXT_DAY, 'daily-triage')).toBe(500);
      expect(await ledger.openReservations({ day: NEXT_DAY })).toEqual([next]);
    });

    it('gives every reservation its own id, also across instances on the same storage, and loses none opened at once', async () => {
      const created = await subject();
      const second = await created.reopen();
      const opened = await Promise.all(
        Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? created.ledger : second).open(request(10, { tickId: `tick-${index}`, at: AT + index }))),
      );
      expect(new Set(opened.map((reservation) => reservation.id)).size).toBe(20);
      expect(await (await created.reopen()).spentOn(DAY, 'daily-triage')).toBe(200);
    });

    it.runIf(options.rehearsals ?? false)("removes one loop's mock spend, opens and closes alike, and keeps real spend and other loops' rehearsals", async () => {
      const created = await subject();
      const { mockLedger, remove } = created.rehearsal!;
      const mock = await mockLedger();
      const rehearsed = await mock.open(request(5_000, { tickId: 'mock-1' }));
      await mock.settle(rehearsed.id, { at: AT + 1, tokens: 4_000, costUsd: 0 });
      await mock.record({ at: AT + 2, day: DAY, patternId: 'daily-triage', tickId: 'mock-1', phase: 'check', tokens: 300, costUsd: null });
      const otherLoop = await mock.open(request(700, { patternId: 'ci-sweeper', tickId: 'mock-2' }));
      const real = await created.ledger.open(request(1_000, { tickId: 'real-1' }));
      await created.ledger.settle(real.id, { at: AT + 3, tokens: 900, costUsd: 0.01 });
      const stillOpen = await created.ledger.open(request(100, { tickId: 'real-2', at: AT + 4 }));
      expect(await mock.spentOn(DAY, 'daily-triage')).toBe(4_000 + 300 + 900 + 100);

      expect(await remove('daily-triage')).toBeGreaterThan(0);
      for (const reader of [await mockLedger(), await created.reopen()]) expect(await reader.spentOn(DAY, 'daily-triage')).toBe(900 + 100);
      expect(await (await mockLedger()).spentOn(DAY, 'ci-sweeper')).toBe(700);
      expect(await created.ledger.openReservations({ day: DAY, patternId: 'daily-triage' })).toEqual([stillOpen]);
      expect(await created.ledger.openReservations({ day: DAY, patternId: 'ci-sweeper' })).toEqual([otherLoop]);
      // Nothing of the rehearsal is left: a second reset removes nothing, and the real spend still settles.
      expect(await remove('daily-triage')).toBe(0);
      expect((await created.ledger.settle(stillOpen.id, { at: AT + 5, tokens: 50, costUsd: null })).ok).toBe(true);
    });

    it.runIf(options.corruptible ?? false)('fails with BUDGET_LEDGER_UNREADABLE on damaged storage instead of reading it as empty', async () => {
      const created = await subject();
      await created.ledger.open(request(40_000));
      await created.corrupt!();
      const after = await created.reopen();
      const error: unknown = await after.spentOn(DAY, 'daily-triage').then(() => null, (caught: unknown) => caught);
      expect(isLoopRuntimeError(error) ? error.code : error).toBe('BUDGET_LEDGER_UNREADABLE');
      expect(isLoopRuntimeError(error) ? error.message : '').toMatch(/To fix: /);
    });
  });
}
