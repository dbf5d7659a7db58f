import type { BudgetLedger, SpendEntry } from '../../core/ports/index.js';
import { MemoryBudgetLedger } from './memory-budget-ledger.js';

/**
 * Reads real spend from a base ledger but keeps new spend in memory: what
 * `--dry-run` uses, so a rehearsal sees today's true budget and writes nothing.
 */
export class OverlayBudgetLedger implements BudgetLedger {
  readonly specificationVersion = 'budget-ledger-v1' as const;
  readonly overlay = new MemoryBudgetLedger();
  constructor(private readonly base: BudgetLedger) {}

  async spentOn(day: string, patternId: string): Promise<number> {
    return (await this.base.spentOn(day, patternId)) + (await this.overlay.spentOn(day, patternId));
  }

  async record(entry: SpendEntry): Promise<void> {
    await this.overlay.record(entry);
  }
}
