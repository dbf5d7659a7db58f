/**
 * The accounting rules of a budget-ledger-v2 journal, shared by every ledger
 * (memory, file) so they cannot drift: entries are visited newest first,
 * each reservation counts once, an open one at its full amount.
 */
import { parseTimestamp } from '../time/utc-time.js';
import type { CloseResult, OpenReservation, ReconcileRequest, SettleUsage, SpendEntry } from '../ports/index.js';

/** One journal entry. `spend` is also what a v1 journal line (no `kind`) means. */
export type JournalEntry =
  | ({ kind: 'spend' } & SpendEntry)
  | ({ kind: 'open' } & OpenReservation)
  | ({ kind: 'settle'; id: string } & SpendEntry)
  | ({ kind: 'reconcile'; id: string; reason: string } & Omit<SpendEntry, 'costUsd'>);

export type CloseEntry = Extract<JournalEntry, { kind: 'settle' | 'reconcile' }>;

/** How far before a day's first millisecond a scan keeps reading, for appends that raced across midnight. */
export const MIDNIGHT_SLACK_MS = 60 * 60_000;

/**
 * True when a newest-first scan for `day` may stop at `entry`: entries are
 * appended in time order, and opens and plain spend are written at the time
 * they are about. Closes are never a stop: a reservation opened yesterday may
 * be settled today.
 */
export function isBeforeDay(entry: JournalEntry, day: string): boolean {
  if (entry.kind !== 'open' && entry.kind !== 'spend') return false;
  if (entry.day >= day) return false;
  return !Number.isFinite(entry.at) || entry.at < parseTimestamp(`${day}T00:00:00Z`) - MIDNIGHT_SLACK_MS;
}

interface Slot {
  open?: OpenReservation;
  settled?: number;
  reconciled?: number;
}

/**
 * Sums one day's spend from entries visited newest first: plain spend, plus
 * for each reservation its latest settle, else its latest reconcile, else
 * (still open) its full amount.
 */
export class JournalTally {
  private plain = 0;
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly day: string,
    private readonly patternId?: string,
  ) {}

  visit(entry: JournalEntry): void {
    if (entry.day !== this.day || (this.patternId !== undefined && entry.patternId !== this.patternId)) return;
    if (entry.kind === 'spend') {
      this.plain += entry.tokens;
      return;
    }
    let slot = this.slots.get(entry.id);
    if (!slot) this.slots.set(entry.id, (slot = {}));
    if (entry.kind === 'open') slot.open ??= reservationOf(entry);
    else if (entry.kind === 'settle') slot.settled ??= entry.tokens;
    else slot.reconciled ??= entry.tokens;
  }

  spent(): number {
    let total = this.plain;
    for (const slot of this.slots.values()) total += slot.settled ?? slot.reconciled ?? slot.open?.tokens ?? 0;
    return total;
  }

  /** Reservations seen open and never closed, oldest first. */
  openReservations(): OpenReservation[] {
    const open: OpenReservation[] = [];
    for (const slot of this.slots.values()) {
      if (slot.open && slot.settled === undefined && slot.reconciled === undefined) open.push(slot.open);
    }
    // Visited newest first; equal times keep journal order.
    return open.reverse().sort((a, b) => a.at - b.at);
  }
}

/**
 * What the journal knows about one reservation, from entries visited newest
 * first; `visit` answers "stop" once the open entry is found (nothing about
 * a reservation is written before it is opened).
 */
export class ReservationLookup {
  open: OpenReservation | null = null;
  settled = false;
  reconciled = false;

  constructor(readonly id: string) {}

  visit(entry: JournalEntry): 'continue' | 'stop' {
    if (entry.kind === 'spend' || entry.id !== this.id) return 'continue';
    if (entry.kind === 'settle') this.settled = true;
    else if (entry.kind === 'reconcile') this.reconciled = true;
    else {
      this.open = reservationOf(entry);
      return 'stop';
    }
    return 'continue';
  }
}

/**
 * Decides a settle or reconcile: the entry to append (null when nothing may
 * be written) and the result to return.
 */
export function decideClose(
  lookup: ReservationLookup,
  close: { kind: 'settle'; usage: SettleUsage } | { kind: 'reconcile'; request: ReconcileRequest },
): { entry: CloseEntry | null; result: CloseResult } {
  const { open } = lookup;
  if (!open) {
    return { entry: null, result: { ok: false, reason: 'unknown-reservation', message: `No reservation ${lookup.id} was opened in this ledger.` } };
  }
  if (lookup.settled || (close.kind === 'reconcile' && lookup.reconciled)) {
    const how = lookup.settled ? 'settled' : 'reconciled';
    return { entry: null, result: { ok: false, reason: 'already-closed', message: `Reservation ${lookup.id} (${open.patternId} ${open.phase}, tick ${open.tickId}) is already ${how}.` } };
  }
  const tokens = Math.max(0, Math.ceil(close.kind === 'settle' ? close.usage.tokens : close.request.tokens));
  // Every key written out, not `{ kind, ...base, at, … }`: keys after a spread take V8 11's slow path (three settles a
  // tick). The order is the journal line's.
  const entry: CloseEntry =
    close.kind === 'settle'
      ? { kind: 'settle', id: open.id, day: open.day, patternId: open.patternId, tickId: open.tickId, phase: open.phase, at: close.usage.at, tokens, costUsd: close.usage.costUsd }
      : { kind: 'reconcile', id: open.id, day: open.day, patternId: open.patternId, tickId: open.tickId, phase: open.phase, at: close.request.at, tokens, reason: close.request.reason };
  return { entry, result: { ok: true, id: open.id, tokens, replaced: close.kind === 'settle' && lookup.reconciled ? 'reconcile' : null } };
}

export function reservationOf(entry: Extract<JournalEntry, { kind: 'open' }>): OpenReservation {
  return { id: entry.id, at: entry.at, day: entry.day, patternId: entry.patternId, tickId: entry.tickId, phase: entry.phase, tokens: entry.tokens };
}

/** A settle or reconcile as the spend it records (for inspecting a ledger). */
export function closeAsSpend(entry: JournalEntry): SpendEntry | null {
  if (entry.kind === 'open') return null;
  return { at: entry.at, day: entry.day, patternId: entry.patternId, tickId: entry.tickId, phase: entry.phase, tokens: entry.tokens, costUsd: 'costUsd' in entry ? entry.costUsd : null };
}
