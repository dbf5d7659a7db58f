import type { BudgetLedger, CloseResult, OpenReservation, ReconcileRequest, ReservationRequest, SettleUsage, SpendEntry } from '../../core/ports/index.js';
import { closeAsSpend, decideClose, ReservationLookup, type JournalEntry } from '../../core/budget/budget-journal.js';
import { MemoryJournalIndex } from './memory-journal-index.js';

/** One index per journal, shared by every ledger over it. */
const INDEXES = new WeakMap<MemoryJournal, MemoryJournalIndex>();

/**
 * The storage behind a memory ledger. Pass the same journal to a second
 * ledger to model a process that restarted over the same data.
 */
export interface MemoryJournal {
  readonly entries: JournalEntry[];
  nextId: number;
}

export interface MemoryBudgetLedgerOptions {
  /** Pre-loaded spend, e.g. `{ '2026-11-21': { 'daily-triage': 40_000 } }`. */
  seed?: Record<string, Record<string, number>>;
  /** Shared storage (default: a new, empty journal). */
  journal?: MemoryJournal;
}

/**
 * In-memory budget ledger with the same accounting as the file ledger (one
 * journal of open, settle and reconcile entries). Reservation ids are `r-1`,
 * `r-2`, … in the order they were opened.
 *
 * @example
 * ```ts
 * const ledger = new MemoryBudgetLedger({ seed: { '2026-11-21': { 'daily-triage': 40_000 } } });
 * new BudgetBreaker(100_000, { ledger });
 * ```
 */
export class MemoryBudgetLedger implements BudgetLedger {
  readonly specificationVersion = 'budget-ledger-v2' as const;
  readonly journal: MemoryJournal;

  constructor(options: MemoryBudgetLedgerOptions = {}) {
    this.journal = options.journal ?? { entries: [], nextId: 1 };
    for (const [day, patterns] of Object.entries(options.seed ?? {})) {
      for (const [patternId, tokens] of Object.entries(patterns)) {
        this.journal.entries.push({ kind: 'spend', at: Date.parse(`${day}T00:00:00Z`), day, patternId, tickId: 'seed', phase: 'triage', tokens, costUsd: null });
      }
    }
  }

  /** Every settle, reconcile and plain spend, oldest first (open reservations are not spend entries). */
  get entries(): SpendEntry[] {
    return this.journal.entries.flatMap((entry) => closeAsSpend(entry) ?? []);
  }

  async open(request: ReservationRequest): Promise<OpenReservation> {
    // Keys written out, in the order a copy of the request and its id gave (a spread of the fresh reservation into
    // the entry was ~1% of a tick).
    const { at, day, patternId, tickId, phase } = request;
    const tokens = Math.max(0, Math.ceil(request.tokens));
    const id = `r-${this.journal.nextId++}`;
    this.journal.entries.push({ kind: 'open', at, day, patternId, tickId, phase, tokens, id });
    return { at, day, patternId, tickId, phase, tokens, id };
  }

  async settle(reservationId: string, usage: SettleUsage): Promise<CloseResult> {
    return this.close(reservationId, { kind: 'settle', usage });
  }

  async reconcile(reservationId: string, request: ReconcileRequest): Promise<CloseResult> {
    return this.close(reservationId, { kind: 'reconcile', request });
  }

  async openReservations(query: { day: string; patternId?: string }): Promise<OpenReservation[]> {
    return this.index().openReservations(query.day, query.patternId);
  }

  async spentOn(day: string, patternId: string): Promise<number> {
    return this.index().spentOn(day, patternId);
  }

  async record(entry: SpendEntry): Promise<void> {
    this.journal.entries.push({ kind: 'spend', ...entry });
  }

  private index(): MemoryJournalIndex {
    let index = INDEXES.get(this.journal);
    if (!index) INDEXES.set(this.journal, (index = new MemoryJournalIndex(this.journal.entries)));
    return index;
  }

  private close(reservationId: string, close: Parameters<typeof decideClose>[1]): CloseResult {
    const lookup = new ReservationLookup(reservationId);
    for (let index = this.journal.entries.length - 1; index >= 0; index -= 1) {
      if (lookup.visit(this.journal.entries[index]!) === 'stop') break;
    }
    const decided = decideClose(lookup, close);
    if (decided.entry) this.journal.entries.push(decided.entry);
    return decided.result;
  }
}
