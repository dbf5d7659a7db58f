/**
 * The budget breaker: a daily token cap per loop that fails closed.
 *
 * Reserve before spending: a phase asks for a reservation of its maximum
 * cost; the reservation is refused when the ledger's spend (settled spend
 * plus every open reservation, this one's included) would cross the cap, so
 * the ledger never goes over. A granted reservation is journalled by the
 * ledger before `reserve` resolves: a crash during the backend call leaves it
 * counted in full. `settle` records the real spend durably and closes it;
 * `reconcileAbandoned` closes reservations left open by ticks that died.
 */
import type { AgentRole, BudgetLedger, CloseResult, OpenReservation, Usage } from '../ports/index.js';
import { totalTokens } from '../ports/index.js';
import { utcDay } from './utc-day.js';
import { formatCount } from '../text/format-count.js';

export type BudgetState = 'ok' | 'degraded' | 'exhausted';

export interface BudgetStatus {
  day: string;
  /** Settled spend plus open reservations this breaker does not hold (abandoned ones, other processes'). */
  spent: number;
  /** Reservations this breaker holds open. */
  reserved: number;
  cap: number;
  /** spent / cap. */
  fraction: number;
  state: BudgetState;
}

/** A granted reservation; `id` is the ledger's. */
export interface Reservation {
  readonly id: string;
  readonly patternId: string;
  readonly tickId: string;
  readonly phase: AgentRole;
  readonly tokens: number;
  readonly day: string;
}

export type ReserveResult =
  | { ok: true; reservation: Reservation }
  | { ok: false; status: BudgetStatus; message: string };

/** One reservation `reconcileAbandoned` closed (or tried to). */
export interface ReconciledReservation {
  reservation: OpenReservation;
  result: CloseResult;
}

export interface BudgetBreakerOptions {
  /** Durable spend storage (budget-ledger-v2): the file ledger in production, `MemoryBudgetLedger` in tests. */
  ledger: BudgetLedger;
  /** From this fraction of the cap on, ticks only report. Default 0.8. */
  degradeAtFraction?: number;
  /**
   * Whether the tick that opened a reservation may still be running. Asked
   * only about reservations of the loop being ticked that this breaker does
   * not hold. Default: no — right when a loop's ticks run under its lease
   * (the CLI's case). A wrong "no" is still safe: the reservation is closed
   * at its full amount, and the live tick's settle later replaces it.
   */
  isTickRunning?: (reservation: OpenReservation) => boolean | Promise<boolean>;
}

interface DayTotals {
  day: string;
  /** Ledger spend minus the reservations this breaker holds. */
  spent: number;
  reserved: number;
}

const DAY_MS = 86_400_000;

/**
 * @example
 * ```ts
 * const budget = new BudgetBreaker(100_000, { ledger: new FileBudgetLedger({ root }) });
 * await budget.reconcileAbandoned('daily-triage', now); // at tick start
 * const grant = await budget.reserve({ patternId: 'daily-triage', tickId: 't1', phase: 'triage', tokens: 25_000, now });
 * if (grant.ok) await budget.settle(grant.reservation, usage, now);
 * ```
 */
export class BudgetBreaker {
  readonly dailyTokenCap: number;
  readonly ledger: BudgetLedger;
  readonly degradeAtFraction: number;
  private readonly isTickRunning: (reservation: OpenReservation) => boolean | Promise<boolean>;
  private readonly totals = new Map<string, DayTotals>();
  /**
   * Reservations this breaker holds open, oldest first: a few at most (one per phase call in flight), so a list
   * searched by id. A Map shrank its table on every delete that emptied it (three a tick).
   */
  private readonly outstanding: Reservation[] = [];

  constructor(dailyTokenCap: number, options: BudgetBreakerOptions) {
    if (!Number.isFinite(dailyTokenCap) || dailyTokenCap <= 0) {
      throw new RangeError(`dailyTokenCap must be a positive number of tokens, got ${dailyTokenCap}.`);
    }
    const ledger = options.ledger;
    if (ledger.specificationVersion !== 'budget-ledger-v2') {
      throw new TypeError(`The budget ledger implements "${String(ledger.specificationVersion)}", but this breaker needs "budget-ledger-v2".`);
    }
    this.dailyTokenCap = dailyTokenCap;
    this.ledger = ledger;
    this.degradeAtFraction = options.degradeAtFraction ?? 0.8;
    this.isTickRunning = options.isTickRunning ?? (() => false);
  }

  /** Today's status for a loop. `refresh` re-reads the ledger (another process may have spent). */
  status(patternId: string, now: number, options?: { refresh?: boolean }): Promise<BudgetStatus> {
    try {
      const day = utcDay(now);
      const refresh = options?.refresh ?? false;
      const cached = refresh ? null : this.cachedTotals(patternId, day);
      // Totals this breaker holds answer at once, with no async frame or ledger read (two of a tick's three asks).
      if (cached) return Promise.resolve(this.describe(cached));
      return this.totalsFor(patternId, day, refresh).then((totals) => this.describe(totals));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Grants a reservation and journals it (durably) before resolving, or
   * refuses it as data. A ledger with `openWithinCap` (shared by several
   * processes) decides the cap atomically itself, so the grant holds across
   * every process writing to it.
   */
  async reserve(request: { patternId: string; tickId: string; phase: AgentRole; tokens: number; now: number }): Promise<ReserveResult> {
    const day = utcDay(request.now);
    const totals = this.cachedTotals(request.patternId, day) ?? (await this.totalsFor(request.patternId, day, false));
    const tokens = Math.max(0, Math.ceil(request.tokens));
    if (totals.spent + totals.reserved + tokens > this.dailyTokenCap) return this.refusal(request.phase, tokens, totals);
    // Held before the await, so a concurrent reserve in this process sees it.
    totals.reserved += tokens;
    let opened: OpenReservation;
    try {
      const asked = { at: request.now, day: totals.day, patternId: request.patternId, tickId: request.tickId, phase: request.phase, tokens };
      if (this.ledger.openWithinCap) {
        const capped = await this.ledger.openWithinCap(asked, this.dailyTokenCap);
        if (!capped.ok) {
          totals.reserved = Math.max(0, totals.reserved - tokens);
          totals.spent = Math.max(0, capped.spent - totals.reserved);
          return this.refusal(request.phase, tokens, totals);
        }
        opened = capped.reservation;
      } else {
        opened = await this.ledger.open(asked);
      }
    } catch (error) {
      totals.reserved = Math.max(0, totals.reserved - tokens);
      throw error;
    }
    const reservation: Reservation = { id: opened.id, patternId: request.patternId, tickId: request.tickId, phase: request.phase, tokens, day: totals.day };
    this.outstanding.push(reservation);
    return { ok: true, reservation };
  }

  private refusal(phase: AgentRole, tokens: number, totals: DayTotals): ReserveResult {
    const status = this.describe(totals);
    return {
      ok: false,
      status,
      message:
        `The ${phase} phase needs a reservation of ${formatCount(tokens)} tokens, but ` +
        `${formatCount(status.spent)} are spent and ${formatCount(status.reserved)} reserved ` +
        `of the ${formatCount(this.dailyTokenCap)} daily cap.`,
    };
  }

  /**
   * Records what the phase really spent (durably, before resolving) and
   * closes its reservation. Spend above the reservation is still recorded:
   * the ledger tells the truth even when a backend broke its contract.
   */
  async settle(reservation: Reservation, usage: Usage, now: number): Promise<{ tokens: number; overrun: number }> {
    const tokens = totalTokens(usage);
    const closed = await this.ledger.settle(reservation.id, { at: now, tokens, costUsd: usage.costUsd });
    if (!closed.ok && closed.reason === 'unknown-reservation') {
      // The ledger lost the open entry (replaced file?): the spend still happened.
      await this.ledger.record({ at: now, day: reservation.day, patternId: reservation.patternId, tickId: reservation.tickId, phase: reservation.phase, tokens, costUsd: usage.costUsd });
    }
    const totals = this.forget(reservation);
    if (totals) totals.spent += tokens;
    return { tokens, overrun: Math.max(0, tokens - reservation.tokens) };
  }

  /** Gives a reservation back without spending (the phase did not run): settles it at zero. */
  async release(reservation: Reservation, now: number): Promise<void> {
    if (!this.holds(reservation.id)) return;
    await this.ledger.settle(reservation.id, { at: now, tokens: 0, costUsd: null });
    this.forget(reservation);
  }

  /**
   * Closes reservations of `patternId` (today's and yesterday's) that this
   * breaker does not hold and whose tick is not running — left by a tick that
   * crashed or was killed — at their full amount. Call at tick start, before
   * the budget check; it changes no total (an open reservation already counts
   * in full) but makes the journal say what happened.
   */
  async reconcileAbandoned(patternId: string, now: number): Promise<ReconciledReservation[]> {
    const closed: ReconciledReservation[] = [];
    // Two distinct days always (UTC has no DST: 24 h back is the day before), so no Set to deduplicate them.
    for (const day of [utcDay(now - DAY_MS), utcDay(now)]) {
      for (const reservation of await this.ledger.openReservations({ day, patternId })) {
        if (this.holds(reservation.id) || (await this.isTickRunning(reservation))) continue;
        const result = await this.ledger.reconcile(reservation.id, {
          at: now,
          tokens: reservation.tokens,
          reason: `tick ${reservation.tickId} ended without settling its ${reservation.phase} reservation (crashed or killed); counted as spent in full`,
        });
        closed.push({ reservation, result });
      }
    }
    if (closed.length > 0) this.totals.delete(patternId);
    return closed;
  }

  /** Drops a reservation from this breaker's hold; returns its day's totals when cached. */
  private forget(reservation: Reservation): DayTotals | null {
    const held = this.outstanding.findIndex((candidate) => candidate.id === reservation.id);
    if (held === -1) return null;
    this.outstanding.splice(held, 1);
    const totals = this.totals.get(reservation.patternId);
    if (!totals || totals.day !== reservation.day) return null;
    totals.reserved = Math.max(0, totals.reserved - reservation.tokens);
    return totals;
  }

  private holds(id: string): boolean {
    return this.outstanding.some((reservation) => reservation.id === id);
  }

  /** Today's totals when this breaker already holds them: no ledger read, so no await (three per backend call). */
  private cachedTotals(patternId: string, day: string): DayTotals | null {
    const totals = this.totals.get(patternId);
    return totals && totals.day === day ? totals : null;
  }

  private async totalsFor(patternId: string, day: string, refresh: boolean): Promise<DayTotals> {
    let totals = this.totals.get(patternId);
    if (!totals || totals.day !== day) {
      let reserved = 0;
      for (const reservation of this.outstanding) {
        if (reservation.patternId === patternId && reservation.day === day) reserved += reservation.tokens;
      }
      totals = { day, spent: Math.max(0, (await this.ledger.spentOn(day, patternId)) - reserved), reserved };
      this.totals.set(patternId, totals);
    } else if (refresh) {
      totals.spent = Math.max(0, (await this.ledger.spentOn(day, patternId)) - totals.reserved);
    }
    return totals;
  }

  private describe(totals: DayTotals): BudgetStatus {
    const fraction = totals.spent / this.dailyTokenCap;
    const state: BudgetState = fraction >= 1 ? 'exhausted' : fraction >= this.degradeAtFraction ? 'degraded' : 'ok';
    return { day: totals.day, spent: totals.spent, reserved: totals.reserved, cap: this.dailyTokenCap, fraction, state };
  }
}
