/**
 * Running totals over a memory journal, so a memory ledger answers `spentOn`
 * and `openReservations` without re-reading every entry (a tick asks several
 * times; re-reading made a long in-process run quadratic). The accounting is
 * `JournalTally`'s, applied oldest first: plain spend adds up; each
 * reservation counts its latest settle, else its latest reconcile, else
 * (still open) its full amount. The journal is append-only; the index reads
 * what was appended since it last looked, so ledgers sharing one journal
 * share one index.
 */
import type { OpenReservation } from '../../core/ports/index.js';
import { reservationOf, type JournalEntry } from '../../core/budget/budget-journal.js';

interface Slot {
  open?: OpenReservation;
  settled?: number;
  reconciled?: number;
}

interface Bucket {
  spent: number;
  slots: Map<string, Slot>;
  /** Reservations opened and not closed, in journal order. */
  open: Map<string, OpenReservation>;
}

const contribution = (slot: Slot): number => slot.settled ?? slot.reconciled ?? slot.open?.tokens ?? 0;

export class MemoryJournalIndex {
  private processed = 0;
  /** day → loop → totals. */
  private readonly days = new Map<string, Map<string, Bucket>>();

  constructor(private readonly entries: readonly JournalEntry[]) {}

  spentOn(day: string, patternId: string): number {
    this.catchUp();
    return this.days.get(day)?.get(patternId)?.spent ?? 0;
  }

  /** Reservations of the day (one loop's, or all) still open, oldest first. */
  openReservations(day: string, patternId?: string): OpenReservation[] {
    this.catchUp();
    const buckets = this.days.get(day);
    if (!buckets) return [];
    if (patternId !== undefined) {
      // The question every tick asks at its start (reconciling abandoned reservations): usually none are open.
      const open = buckets.get(patternId)?.open;
      return open && open.size > 0 ? [...open.values()].sort((a, b) => a.at - b.at) : [];
    }
    const chosen = patternId === undefined ? [...buckets.values()] : [buckets.get(patternId)].filter((bucket): bucket is Bucket => bucket !== undefined);
    return chosen.flatMap((bucket) => [...bucket.open.values()]).sort((a, b) => a.at - b.at);
  }

  private catchUp(): void {
    for (; this.processed < this.entries.length; this.processed += 1) this.apply(this.entries[this.processed]!);
  }

  private apply(entry: JournalEntry): void {
    let loops = this.days.get(entry.day);
    if (!loops) this.days.set(entry.day, (loops = new Map()));
    let bucket = loops.get(entry.patternId);
    if (!bucket) loops.set(entry.patternId, (bucket = { spent: 0, slots: new Map(), open: new Map() }));
    if (entry.kind === 'spend') {
      bucket.spent += entry.tokens;
      return;
    }
    let slot = bucket.slots.get(entry.id);
    if (!slot) bucket.slots.set(entry.id, (slot = {}));
    const before = contribution(slot);
    if (entry.kind === 'open') {
      if (!slot.open) {
        const reservation = reservationOf(entry);
        slot.open = reservation;
        if (slot.settled === undefined && slot.reconciled === undefined) bucket.open.set(entry.id, reservation);
      }
    } else {
      if (entry.kind === 'settle') slot.settled = entry.tokens;
      else slot.reconciled = entry.tokens;
      bucket.open.delete(entry.id);
    }
    bucket.spent += contribution(slot) - before;
    // A settle is final: the ledger refuses any later close of that reservation (decideClose), and ids are never
    // reused, so its slot has nothing left to count — dropped, or a long run keeps one per reservation ever opened.
    if (entry.kind === 'settle') bucket.slots.delete(entry.id);
  }
}
