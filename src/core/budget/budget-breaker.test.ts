import { describe, expect, it } from 'vitest';
import { MemoryBudgetLedger } from '../../adapters/budget-ledger/memory-budget-ledger.js';
import type { Usage } from '../ports/index.js';
import { BudgetBreaker } from './budget-breaker.js';

const NOW = Date.parse('2026-11-21T08:00:00Z');
const DAY = '2026-11-21';
const usage = (tokens: number): Usage => ({ inputTokens: tokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null });
const ask = (tokens: number, tickId = 't1', phase: 'triage' | 'implement' | 'check' = 'implement') => ({ patternId: 'daily-triage', tickId, phase, tokens, now: NOW });

describe('BudgetBreaker with a durable ledger', () => {
  it('journals a reservation before reserve resolves, so a crash leaves it counted in full', async () => {
    const ledger = new MemoryBudgetLedger();
    const budget = new BudgetBreaker(100_000, { ledger });
    const grant = await budget.reserve(ask(40_000));
    expect(grant.ok).toBe(true);
    expect(await ledger.openReservations({ day: DAY })).toEqual([expect.objectContaining({ tickId: 't1', phase: 'implement', tokens: 40_000 })]);
    expect(await budget.status('daily-triage', NOW)).toMatchObject({ spent: 0, reserved: 40_000 });

    // The process dies here. The next process's breaker sees the reservation as spent.
    const next = new BudgetBreaker(100_000, { ledger: new MemoryBudgetLedger({ journal: ledger.journal }) });
    expect(await next.status('daily-triage', NOW)).toMatchObject({ spent: 40_000, reserved: 0 });
    // A reservation that fits only if the orphan is forgotten is refused.
    expect(await next.reserve(ask(60_001, 't2'))).toMatchObject({ ok: false, message: expect.stringContaining('40,000 are spent') });
    expect((await next.reserve(ask(60_000, 't2'))).ok).toBe(true);
  });

  it('settles with the real usage and frees the rest of the reservation', async () => {
    const ledger = new MemoryBudgetLedger();
    const budget = new BudgetBreaker(100_000, { ledger });
    const grant = await budget.reserve(ask(40_000));
    if (!grant.ok) throw new Error(grant.message);
    expect(await budget.settle(grant.reservation, usage(6_500), NOW + 1)).toEqual({ tokens: 6_500, overrun: 0 });
    expect(await budget.status('daily-triage', NOW, { refresh: true })).toMatchObject({ spent: 6_500, reserved: 0 });
    expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(6_500);
    expect(await ledger.openReservations({ day: DAY })).toEqual([]);
  });

  it('reconciles only abandoned reservations of its own loop, today\'s and yesterday\'s', async () => {
    const ledger = new MemoryBudgetLedger();
    const crashed = new BudgetBreaker(100_000, { ledger });
    await crashed.reserve({ ...ask(30_000, 'old'), now: NOW - 86_400_000 });
    await crashed.reserve(ask(20_000, 'dead'));
    await crashed.reserve(ask(10_000, 'alive'));
    await crashed.reserve({ ...ask(5_000, 'other-loop'), patternId: 'ci-sweeper' });

    const budget = new BudgetBreaker(100_000, { ledger, isTickRunning: (reservation) => reservation.tickId === 'alive' });
    const mine = await budget.reserve(ask(1_000, 'current', 'triage'));
    const closed = await budget.reconcileAbandoned('daily-triage', NOW + 5);
    expect(closed.map((entry) => [entry.reservation.tickId, entry.result])).toEqual([
      ['old', expect.objectContaining({ ok: true, tokens: 30_000 })],
      ['dead', expect.objectContaining({ ok: true, tokens: 20_000 })],
    ]);
    expect((await ledger.openReservations({ day: DAY })).map((reservation) => reservation.tickId).sort()).toEqual(['alive', 'current', 'other-loop']);
    // Reconciling at the full amount changes no total.
    expect(await budget.status('daily-triage', NOW)).toMatchObject({ spent: 30_000, reserved: 1_000 });
    expect(mine.ok).toBe(true);
  });

  it('by default treats every reservation it does not hold as abandoned; a late settle still replaces the estimate', async () => {
    const ledger = new MemoryBudgetLedger();
    const live = new BudgetBreaker(100_000, { ledger });
    const grant = await live.reserve(ask(40_000));
    if (!grant.ok) throw new Error(grant.message);
    const other = new BudgetBreaker(100_000, { ledger });
    expect(await other.reconcileAbandoned('daily-triage', NOW)).toHaveLength(1);
    expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(40_000);
    await live.settle(grant.reservation, usage(3_000), NOW + 1);
    expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(3_000);
  });

  it('gives a reservation back at zero with release', async () => {
    const ledger = new MemoryBudgetLedger();
    const budget = new BudgetBreaker(100_000, { ledger });
    const grant = await budget.reserve(ask(40_000));
    if (!grant.ok) throw new Error(grant.message);
    await budget.release(grant.reservation, NOW);
    expect(await ledger.spentOn(DAY, 'daily-triage')).toBe(0);
    expect(await budget.status('daily-triage', NOW)).toMatchObject({ spent: 0, reserved: 0 });
  });

  it('keeps no phantom reservation when the ledger cannot journal it', async () => {
    class FullDiskLedger extends MemoryBudgetLedger {
      override async open(): Promise<never> {
        throw new Error('disk full');
      }
    }
    const failing = new FullDiskLedger();
    const budget = new BudgetBreaker(100_000, { ledger: failing });
    await expect(budget.reserve(ask(40_000))).rejects.toThrow('disk full');
    expect(await budget.status('daily-triage', NOW)).toMatchObject({ spent: 0, reserved: 0 });
  });

  it('refuses a ledger written for another specification version', () => {
    const old = { specificationVersion: 'budget-ledger-v1', spentOn: async () => 0, record: async () => undefined };
    // @ts-expect-error a v1 ledger does not satisfy the v2 port
    expect(() => new BudgetBreaker(1000, { ledger: old })).toThrow(/needs "budget-ledger-v2"/);
  });
});
