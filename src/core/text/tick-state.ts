/**
 * The one vocabulary of tick states an operator reads — `run`, `status`, `history`, `metrics`, the console: a
 * rejected tick is `rejected` everywhere, never the run log's `report-only`. The run log keeps the methodology's
 * four outcomes (its format is shared with other tools); what we show is derived from the tick's kind, which our
 * lines carry, and falls back to the outcome for lines other tools wrote. Pure.
 */
export const TICK_STATES = {
  proposed: 'proposed',
  escalated: 'escalated',
  rejected: 'rejected',
  report: 'report-only',
  noop: 'no-op',
  failed: 'failed',
  halted: 'halted',
  paused: 'paused',
} as const;

export type TickState = (typeof TICK_STATES)[keyof typeof TICK_STATES] | 'interrupted';

/**
 * @example
 * ```ts
 * tickState({ kind: 'rejected', outcome: 'report-only' }); // → 'rejected'
 * tickState({ kind: null, outcome: 'fix-proposed' });      // → 'proposed' (a line another tool wrote)
 * tickState({ kind: 'human-rejected', outcome: 'no-op' }); // → 'human-rejected'
 * ```
 */
export function tickState(record: { kind?: string | null | undefined; outcome?: string | null | undefined }): string {
  if (record.outcome === 'interrupted') return 'interrupted';
  const kind = record.kind ?? null;
  if (kind !== null && Object.hasOwn(TICK_STATES, kind)) return TICK_STATES[kind as keyof typeof TICK_STATES];
  // Lines written outside a tick name what happened (human-approved, delivery-failed, …): that is their state.
  if (kind) return kind;
  if (record.outcome === 'fix-proposed') return 'proposed';
  return record.outcome ?? 'no-op';
}
