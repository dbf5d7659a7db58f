import type { AgentRole } from './agent-backend.js';

/** What a phase asks to hold before its backend is called. */
export interface ReservationRequest {
  at: number;
  /** UTC day the reservation (and its eventual spend) counts against, YYYY-MM-DD. */
  day: string;
  patternId: string;
  tickId: string;
  phase: AgentRole;
  /** The most the phase may spend; counted as spent until the reservation is closed. */
  tokens: number;
}

/** Spend recorded without a reservation (imports, tools that log their own spend, v1 journal lines): the tokens are spent. */
export interface SpendEntry extends ReservationRequest {
  costUsd: number | null;
}

/** A reservation the ledger has durably journalled. `id` is unique across processes. */
export interface OpenReservation extends ReservationRequest {
  readonly id: string;
}

/** The real spend of a reserved phase. */
export interface SettleUsage {
  at: number;
  tokens: number;
  costUsd: number | null;
}

/** Closes a reservation whose tick is gone: `tokens` is what it is taken to have spent. */
export interface ReconcileRequest {
  at: number;
  tokens: number;
  /** Why it was closed this way, kept in the journal for humans. */
  reason: string;
}

/**
 * The outcome of closing a reservation. `replaced: 'reconcile'` means the
 * real usage arrived after the reservation had been reconciled and now
 * replaces that estimate.
 */
export type CloseResult =
  | { ok: true; id: string; tokens: number; replaced: 'reconcile' | null }
  | { ok: false; reason: 'unknown-reservation' | 'already-closed'; message: string };

/**
 * Durable spend storage: a journal of open reservations and their closes.
 *
 * Guarantees every implementation keeps (the conformance suite in
 * `loop-runtime/testing` checks them):
 * - `open` is durable when it resolves, so a reservation exists on disk
 *   before the backend is called and survives a kill -9 of the process.
 * - `spentOn` counts settled spend plus the full amount of every reservation
 *   still open: an open reservation is spent until it is closed.
 * - A reservation is closed once by `settle` (real usage) or `reconcile`
 *   (its tick is gone); a later `settle` replaces a `reconcile`, nothing
 *   replaces a `settle`. Closing counts against the reservation's day, not
 *   the day the close was written.
 * - Storage that cannot be read is a `LoopRuntimeError`
 *   (`BUDGET_LEDGER_UNREADABLE`), never an empty ledger.
 *
 * @example
 * ```ts
 * const held = await ledger.open({ at, day, patternId: 'ci-sweeper', tickId, phase: 'implement', tokens: 40_000 });
 * // ... backend runs; a crash here leaves 40,000 counted as spent ...
 * await ledger.settle(held.id, { at, tokens: 12_345, costUsd: null });
 * ```
 */
export interface BudgetLedger {
  readonly specificationVersion: 'budget-ledger-v2';
  /** Journals a reservation; durable when it resolves. */
  open(request: ReservationRequest): Promise<OpenReservation>;
  /** Closes a reservation with the real usage; durable when it resolves. */
  settle(reservationId: string, usage: SettleUsage): Promise<CloseResult>;
  /** Closes a reservation left open by a tick that is no longer running. */
  reconcile(reservationId: string, request: ReconcileRequest): Promise<CloseResult>;
  /** Reservations of `day` (optionally one loop's) not yet closed, oldest first. */
  openReservations(query: { day: string; patternId?: string }): Promise<OpenReservation[]>;
  /** Settled spend plus still-open reservations of one loop on one UTC day. */
  spentOn(day: string, patternId: string): Promise<number>;
  /** Records spend that had no reservation; durable when it resolves. */
  record(entry: SpendEntry): Promise<void>;
  /**
   * Optional capability of ledgers shared by several processes (the fleet
   * store): opens the reservation only if the loop's spend on the day plus
   * it stays within `cap`, decided atomically against every writer. When
   * present, the BudgetBreaker reserves through it, so N workers can never
   * together pass the cap.
   */
  openWithinCap?(request: ReservationRequest, cap: number): Promise<CappedOpenResult>;
}

/** `spent`: the loop's spend on the day (settled plus open) when the reservation was refused. */
export type CappedOpenResult = { ok: true; reservation: OpenReservation } | { ok: false; spent: number };
