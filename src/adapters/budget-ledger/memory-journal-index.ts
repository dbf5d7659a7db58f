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

type OpenEntry = Extract<JournalEntry, { kind: 'open' }>;

interface Slot {
  id: string;
  /** The journal's own open entry, copied (`reservationOf`) only when asked for: most are settled first, unread. */
  open: OpenEntry | undefined;
  settled: number | undefined;
  reconciled: number | undefined;
}

interface Bucket {
  spent: number;
  /**
   * Per reservation not yet settled, in the order its first entry came (its open, in a journal that is in order).
   * A list searched from its end (a settle closes a recent open; few are unsettled at once), not a Map: deleting
   * a Map's last entry shrinks its table, on every settle.
   */
  slots: Slot[];
  /** How many of `slots` are open and not closed: the question every tick asks is usually answered by a zero. */
  open: number;
}

const contribution = (slot: Slot): number => slot.settled ?? slot.reconciled ?? slot.open?.tokens ?? 0;
const isOpen = (slot: Slot): boolean => slot.open !== undefined && slot.settled === undefined && slot.reconciled === undefined;

function collectOpen(bucket: Bucket, into: OpenReservation[]): void {
  if (bucket.open === 0) return;
  for (const slot of bucket.slots) if (isOpen(slot)) into.push(reservationOf(slot.open!));
}

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
    const open: OpenReservation[] = [];
    if (!buckets) return open;
    // One loop's bucket read directly (the question every tick asks, usually answered by its zero count), no list of buckets built.
    if (patternId !== undefined) {
      const bucket = buckets.get(patternId);
      if (bucket) collectOpen(bucket, open);
    } else {
      for (const bucket of buckets.values()) collectOpen(bucket, open);
    }
    return open.length > 1 ? open.sort((a, b) => a.at - b.at) : open;
  }

  private catchUp(): void {
    for (; this.processed < this.entries.length; this.processed += 1) this.apply(this.entries[this.processed]!);
  }

  private apply(entry: JournalEntry): void {
    let loops = this.days.get(entry.day);
    if (!loops) this.days.set(entry.day, (loops = new Map()));
    let bucket = loops.get(entry.patternId);
    if (!bucket) loops.set(entry.patternId, (bucket = { spent: 0, slots: [], open: 0 }));
    if (entry.kind === 'spend') {
      bucket.spent += entry.tokens;
      return;
    }
    // One shape for every slot (all three keys from the start), so reading them stays monomorphic.
    let at = bucket.slots.length - 1;
    while (at >= 0 && bucket.slots[at]!.id !== entry.id) at--;
    let slot = bucket.slots[at];
    if (!slot) bucket.slots.push((slot = { id: entry.id, open: undefined, settled: undefined, reconciled: undefined }));
    const before = contribution(slot);
    const wasOpen = isOpen(slot);
    if (entry.kind === 'open') {
      slot.open ??= entry;
    } else if (entry.kind === 'settle') {
      slot.settled = entry.tokens;
    } else {
      slot.reconciled = entry.tokens;
    }
    bucket.open += (isOpen(slot) ? 1 : 0) - (wasOpen ? 1 : 0);
    bucket.spent += contribution(slot) - before;
    // A settle is final: the ledger refuses any later close of that reservation (decideClose), and ids are never
    // reused, so its slot has nothing left to count — dropped, or a long run keeps one per reservation ever opened.
    if (entry.kind === 'settle') bucket.slots.splice(at === -1 ? bucket.slots.length - 1 : at, 1);
  }
}
