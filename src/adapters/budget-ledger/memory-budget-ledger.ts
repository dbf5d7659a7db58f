import type { BudgetLedger, SpendEntry } from '../../core/ports/index.js';

/** In-memory spend ledger: totals per UTC day and pattern, plus the entries for inspection. */
export class MemoryBudgetLedger implements BudgetLedger {
  readonly specificationVersion = 'budget-ledger-v1' as const;
  readonly entries: SpendEntry[] = [];
  private readonly totals = new Map<string, number>();
  private readonly keepEntries: boolean;

  /** `seed` pre-loads spend, e.g. `{ '2026-11-21': { 'daily-triage': 40_000 } }`. */
  constructor(options: { seed?: Record<string, Record<string, number>>; keepEntries?: boolean } = {}) {
    this.keepEntries = options.keepEntries ?? true;
    for (const [day, patterns] of Object.entries(options.seed ?? {})) {
      for (const [patternId, tokens] of Object.entries(patterns)) this.totals.set(`${day}|${patternId}`, tokens);
    }
  }

  async spentOn(day: string, patternId: string): Promise<number> {
    return this.totals.get(`${day}|${patternId}`) ?? 0;
  }

  async record(entry: SpendEntry): Promise<void> {
    const key = `${entry.day}|${entry.patternId}`;
    this.totals.set(key, (this.totals.get(key) ?? 0) + entry.tokens);
    if (this.keepEntries) this.entries.push(entry);
  }
}
