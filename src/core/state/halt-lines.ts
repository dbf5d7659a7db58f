/**
 * Halts that need a human, kept in the loop's run log: a `kind: halted` line
 * when a tick halts for a sticky reason, a `kind: resumed` line when a human
 * runs `loop-runtime resume <id>`. The loop is halted while its newest such
 * line is a halt. The run log is the file that fits: it is per loop, append
 * only, on the state branch (union-merged, so an ephemeral CI runner sees the
 * halt too), read by `status`, and `resume` must say who and when anyway.
 */
import type { LoopHalt, StickyHaltReason } from '../ports/index.js';
import { parseTimestamp } from '../time/utc-time.js';
import type { RunLogEntry, RunLogLine } from './run-log.js';
import { isoSecond } from './state-blocks.js';

const STICKY: readonly string[] = ['backend-stopped', 'budget-overrun'] satisfies readonly StickyHaltReason[];
const isSticky = (reason: string): reason is StickyHaltReason => STICKY.includes(reason);

/**
 * The run-log line that persists a halt (it is also the halted tick's line).
 *
 * @example
 * ```ts
 * haltRunLogLine({ patternId: 'ci-sweeper', reason: 'backend-stopped', message: 'logged out', tickId: 't1', startedAt: 0, at: 2_000, tokens: 0 });
 * // { run_id: '1970-01-01T00:00:00Z', pattern: 'ci-sweeper', …, kind: 'halted', reason: 'backend-stopped', message: 'logged out' }
 * ```
 */
export function haltRunLogLine(halt: LoopHalt, level?: string): RunLogLine {
  return {
    run_id: isoSecond(halt.startedAt),
    pattern: halt.patternId,
    duration_s: Math.max(0, Math.round((halt.at - halt.startedAt) / 1000)),
    items_found: 0,
    actions_taken: 0,
    escalations: 0,
    tokens_estimate: halt.tokens,
    outcome: 'no-op',
    tick_id: halt.tickId,
    ...(level ? { level } : {}),
    kind: 'halted',
    reason: halt.reason,
    message: halt.message,
  };
}

/** The run-log line that clears a loop's halt: who resumed it, when, and which halt it was. */
export function resumeRunLogLine(request: { patternId: string; at: number; by: string; halt: LoopHalt }): RunLogLine {
  return {
    run_id: isoSecond(request.at),
    pattern: request.patternId,
    duration_s: 0,
    items_found: 0,
    actions_taken: 0,
    escalations: 0,
    tokens_estimate: 0,
    outcome: 'no-op',
    kind: 'resumed',
    reason: `resumed by ${request.by} after ${request.halt.reason} (tick ${request.halt.tickId})`,
    message: request.halt.message,
    by: request.by,
  };
}

/**
 * The loop's halt that no one has resumed, or null. Lines are read in file order (the run log is
 * append-only); a halted line with a reason this version does not know still halts (fail closed) as
 * `backend-stopped`, its message kept.
 */
export function activeHalt(entries: readonly RunLogEntry[], patternId: string): LoopHalt | null {
  let halt: LoopHalt | null = null;
  for (const entry of entries) {
    if (entry.pattern !== patternId) continue;
    if (entry.kind === 'resumed') halt = null;
    if (entry.kind !== 'halted') continue;
    const reason = typeof entry['reason'] === 'string' ? entry['reason'] : '';
    const message = typeof entry['message'] === 'string' ? entry['message'] : `halted (${reason || 'no reason recorded'})`;
    const startedAt = parseTimestamp(entry.run_id);
    halt = {
      patternId,
      reason: isSticky(reason) ? reason : 'backend-stopped',
      message,
      tickId: entry.tick_id ?? entry.run_id,
      startedAt: Number.isNaN(startedAt) ? 0 : startedAt,
      at: (Number.isNaN(startedAt) ? 0 : startedAt) + (entry.duration_s ?? 0) * 1000,
      tokens: entry.tokens_estimate ?? 0,
    };
  }
  return halt;
}
