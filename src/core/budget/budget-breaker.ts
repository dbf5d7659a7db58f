/**
 * The budget breaker: a daily token cap per loop that fails closed.
 *
 * Reserve before spending: a phase asks for a reservation of its maximum
 * cost; the reservation is refused when spent + outstanding reservations +
 * the new one would cross the cap, so the ledger never goes over. After the
 * call, `settle` records the real spend durably (through the ledger) and
 * releases the reservation.
 */
import type { AgentRole, BudgetLedger, Usage } from '../ports/index.js';
import { totalTokens } from '../ports/index.js';
import { MemoryBudgetLedger } from '../../adapters/budget-ledger/memory-budget-ledger.js';
import { utcDay } from './utc-day.js';

export type BudgetState = 'ok' | 'degraded' | 'exhausted';

export interface BudgetStatus {
  day: string;
  spent: number;
  reserved: number;
  cap: number;
  /** spent / cap. */
  fraction: number;
  state: BudgetState;
}

export interface Reservation {
  readonly id: number;
  readonly patternId: string;
  readonly tickId: string;
  readonly phase: AgentRole;
  readonly tokens: number;
  readonly day: string;
}

export type ReserveResult =
  | { ok: true; reservation: Reservation }
  | { ok: false; status: BudgetStatus; message: string };

export interface BudgetBreakerOptions {
  /** Durable spend storage; defaults to memory. */
  ledger?: BudgetLedger;
  /** From this fraction of the cap on, ticks only report. Default 0.8. */
  degradeAtFraction?: number;
}

interface DayTotals {
  day: string;
  spent: number;
  reserved: number;
}

/**
 * @example
 * ```ts
 * const budget = new BudgetBreaker(100_000);
 * const grant = await budget.reserve({ patternId: 'daily-triage', tickId: 't1', phase: 'triage', tokens: 25_000, now });
 * if (grant.ok) await budget.settle(grant.reservation, usage, now);
 * ```
 */
export class BudgetBreaker {
  readonly dailyTokenCap: number;
  readonly ledger: BudgetLedger;
  readonly degradeAtFraction: number;
  private readonly totals = new Map<string, DayTotals>();
  private readonly outstanding = new Map<number, Reservation>();
  private nextReservationId = 1;

  constructor(dailyTokenCap: number, options: BudgetBreakerOptions = {}) {
    if (!Number.isFinite(dailyTokenCap) || dailyTokenCap <= 0) {
      throw new RangeError(`dailyTokenCap must be a positive number of tokens, got ${dailyTokenCap}.`);
    }
    this.dailyTokenCap = dailyTokenCap;
    this.ledger = options.ledger ?? new MemoryBudgetLedger({ keepEntries: false });
    this.degradeAtFraction = options.degradeAtFraction ?? 0.8;
  }

  /** Today's status for a loop. `refresh` re-reads the ledger (another process may have spent). */
  async status(patternId: string, now: number, options: { refresh?: boolean } = {}): Promise<BudgetStatus> {
    const totals = await this.totalsFor(patternId, utcDay(now), options.refresh ?? false);
    return this.describe(totals);
  }

  async reserve(request: { patternId: string; tickId: string; phase: AgentRole; tokens: number; now: number }): Promise<ReserveResult> {
    const totals = await this.totalsFor(request.patternId, utcDay(request.now), false);
    const tokens = Math.max(0, Math.ceil(request.tokens));
    if (totals.spent + totals.reserved + tokens > this.dailyTokenCap) {
      const status = this.describe(totals);
      return {
        ok: false,
        status,
        message:
          `The ${request.phase} phase needs a reservation of ${tokens.toLocaleString('en-US')} tokens, but ` +
          `${status.spent.toLocaleString('en-US')} are spent and ${status.reserved.toLocaleString('en-US')} reserved ` +
          `of the ${this.dailyTokenCap.toLocaleString('en-US')} daily cap.`,
      };
    }
    const reservation: Reservation = {
      id: this.nextReservationId++,
      patternId: request.patternId,
      tickId: request.tickId,
      phase: request.phase,
      tokens,
      day: totals.day,
    };
    totals.reserved += tokens;
    this.outstanding.set(reservation.id, reservation);
    return { ok: true, reservation };
  }

  /**
   * Records what the phase really spent (durably, before resolving) and
   * releases its reservation. Spend above the reservation is still recorded:
   * the ledger tells the truth even when a backend broke its contract.
   */
  async settle(reservation: Reservation, usage: Usage, now: number): Promise<{ tokens: number; overrun: number }> {
    const tokens = totalTokens(usage);
    this.release(reservation);
    await this.ledger.record({
      at: now,
      day: reservation.day,
      patternId: reservation.patternId,
      tickId: reservation.tickId,
      phase: reservation.phase,
      tokens,
      costUsd: usage.costUsd,
    });
    const totals = this.totals.get(reservation.patternId);
    if (totals && totals.day === reservation.day) totals.spent += tokens;
    return { tokens, overrun: Math.max(0, tokens - reservation.tokens) };
  }

  /** Gives a reservation back without spending (the phase did not run). */
  release(reservation: Reservation): void {
    if (!this.outstanding.delete(reservation.id)) return;
    const totals = this.totals.get(reservation.patternId);
    if (totals && totals.day === reservation.day) totals.reserved = Math.max(0, totals.reserved - reservation.tokens);
  }

  private async totalsFor(patternId: string, day: string, refresh: boolean): Promise<DayTotals> {
    let totals = this.totals.get(patternId);
    if (!totals || totals.day !== day) {
      totals = { day, spent: await this.ledger.spentOn(day, patternId), reserved: 0 };
      for (const reservation of this.outstanding.values()) {
        if (reservation.patternId === patternId && reservation.day === day) totals.reserved += reservation.tokens;
      }
      this.totals.set(patternId, totals);
    } else if (refresh) {
      totals.spent = await this.ledger.spentOn(day, patternId);
    }
    return totals;
  }

  private describe(totals: DayTotals): BudgetStatus {
    const fraction = totals.spent / this.dailyTokenCap;
    const state: BudgetState = fraction >= 1 ? 'exhausted' : fraction >= this.degradeAtFraction ? 'degraded' : 'ok';
    return { day: totals.day, spent: totals.spent, reserved: totals.reserved, cap: this.dailyTokenCap, fraction, state };
  }
}
