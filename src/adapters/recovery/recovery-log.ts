/**
 * `.loop-runtime/recovery.jsonl`: one line per tick start that recovered
 * something (recovery/tick-start-recovery.ts writes it). Kept apart from the
 * recovery itself so `status` reads it without loading git or the worktree
 * store.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const RECOVERY_LOG = '.loop-runtime/recovery.jsonl';

/** A commit a killed tick made but never recorded, given its run-log line by a later tick start. */
export interface RecoveredTick {
  tickId: string;
  commit: string;
  branch: string;
  worktree: string;
  committedAt: string;
}

/** What one tick start recovered (only written when it recovered something). */
export interface RecoveryRecord {
  at: string;
  loop: string;
  /** Paths of the temporary files removed: relative to the checkout, absolute outside it. */
  removedTemporaryFiles: string[];
  recoveredTicks: RecoveredTick[];
}

/**
 * The last `limit` recoveries of a loop, newest first (unreadable lines are skipped: this is a report, not state).
 *
 * @example
 * ```ts
 * (await recentRecoveries('/repo', 'ci-sweeper', 3))[0]?.recoveredTicks; // → [{ tickId, commit, branch, … }]
 * ```
 */
export async function recentRecoveries(root: string, loop: string, limit = 5): Promise<RecoveryRecord[]> {
  return recoveriesIn(await readFile(join(root, RECOVERY_LOG), 'utf8').catch(() => ''), loop, limit);
}

/**
 * `recentRecoveries` over the recovery log's text (a report that already read it: `status`).
 *
 * @example
 * ```ts
 * recoveriesIn(readFileSync('/repo/.loop-runtime/recovery.jsonl', 'utf8'), 'ci-sweeper', 3); // → newest first
 * ```
 */
export function recoveriesIn(text: string, loop: string, limit = 5): RecoveryRecord[] {
  const records: RecoveryRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const value = JSON.parse(line) as RecoveryRecord;
      if (value.loop === loop && Array.isArray(value.removedTemporaryFiles) && Array.isArray(value.recoveredTicks)) records.push(value);
    } catch {
      // A torn last line from a kill: skip it.
    }
  }
  return records.slice(-limit).reverse();
}
