import type { Finding } from './agent-backend.js';

/** What goes to the state file and run log after each tick. */
export interface TickRecord {
  tickId: string;
  patternId: string;
  startedAt: number;
  finishedAt: number;
  /**
   * Run-log outcome: the methodology's four (`no-op`, `report-only`,
   * `fix-proposed`, `escalated`), plus `failed` for a tick that failed — the
   * methodology has no word for it, and a failure must never read as a quiet
   * no-op (`kind` says which failure), and `interrupted` for a tick a stop
   * signal ended (settled, neither a failure nor a quiet tick).
   */
  outcome: 'no-op' | 'report-only' | 'fix-proposed' | 'escalated' | 'failed' | 'interrupted';
  /** Our finer-grained kind (TickResult.kind). */
  kind: string;
  /** A halted tick's reason (`circuit-open`, `budget-exhausted`, …): written on its `halted-tick` run-log line. */
  reason?: string;
  level: string;
  itemsFound: number;
  actionsTaken: number;
  escalations: number;
  tokens: number;
  summary: string;
  findings: Finding[];
  /** Items waiting on a human: what to decide and how. */
  waiting: { itemKey: string; title: string; loopAction: string; humanDecision: string }[];
}

/**
 * Writes STATE.md (or `<pattern>-state.md`) and loop-run-log.md. Must never
 * destroy sections it does not own.
 */
export interface StateWriter {
  readonly specificationVersion: 'state-writer-v1';
  recordTick(record: TickRecord): Promise<void>;
  /** A one-line note (budget halt, kill switch) in the state file; no run-log line. */
  note(patternId: string, at: number, line: string): Promise<void>;
  /**
   * Optional capability: how many times `patternId` ran on the UTC day `day`
   * (YYYY-MM-DD) by the run log. Required when the plan has
   * `budget.maxRunsPerDay` (loop-budget.md's "Max runs/day").
   *
   * @example
   * ```ts
   * await state.runsOn?.('daily-triage', '2026-05-01'); // → 2
   * ```
   */
  runsOn?(patternId: string, day: string): Promise<number>;
}
