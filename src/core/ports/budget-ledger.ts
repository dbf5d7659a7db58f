import type { AgentRole } from './agent-backend.js';

export interface SpendEntry {
  at: number;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  patternId: string;
  tickId: string;
  phase: AgentRole;
  tokens: number;
  costUsd: number | null;
}

/**
 * Durable spend storage. `record` must be durable when it resolves: spend is
 * recorded before a tick reports success and survives a crash right after.
 */
export interface BudgetLedger {
  readonly specificationVersion: 'budget-ledger-v1';
  spentOn(day: string, patternId: string): Promise<number>;
  record(entry: SpendEntry): Promise<void>;
}
