import type { BudgetLedger, CloseResult, OpenReservation, ReconcileRequest, ReservationRequest, SettleUsage, SpendEntry } from '../../core/ports/index.js';
import { MemoryBudgetLedger } from './memory-budget-ledger.js';

/**
 * Reads real spend from a base ledger but keeps its own reservations and
 * spend in memory: what `--dry-run` uses, so a rehearsal sees today's true
 * budget (open reservations of real ticks included) and writes nothing.
 *
 * A rehearsal reconciles nothing in the base: `openReservations` lists only
 * the overlay's own, so a real tick's reservation stays counted in full until
 * a real tick closes it.
 *
 * @example
 * ```ts
 * const ledger = new OverlayBudgetLedger(new FileBudgetLedger({ root }));
 * ```
 */
export class OverlayBudgetLedger implements BudgetLedger {
  readonly specificationVersion = 'budget-ledger-v2' as const;
  readonly overlay: MemoryBudgetLedger;

  /** `overlay` lets tests share the in-memory part between instances (default: a new one). */
  constructor(
    private readonly base: BudgetLedger,
    options: { overlay?: MemoryBudgetLedger } = {},
  ) {
    this.overlay = options.overlay ?? new MemoryBudgetLedger();
  }

  async open(request: ReservationRequest): Promise<OpenReservation> {
    return this.overlay.open(request);
  }

  async settle(reservationId: string, usage: SettleUsage): Promise<CloseResult> {
    return this.overlay.settle(reservationId, usage);
  }

  async reconcile(reservationId: string, request: ReconcileRequest): Promise<CloseResult> {
    return this.overlay.reconcile(reservationId, request);
  }

  async openReservations(query: { day: string; patternId?: string }): Promise<OpenReservation[]> {
    return this.overlay.openReservations(query);
  }

  async spentOn(day: string, patternId: string): Promise<number> {
    return (await this.base.spentOn(day, patternId)) + (await this.overlay.spentOn(day, patternId));
  }

  async record(entry: SpendEntry): Promise<void> {
    await this.overlay.record(entry);
  }
}
