/**
 * What `state pull` writes for one file. Local state written since the last
 * sync (spend a tick journalled, run-log lines, a `loop-pause-all: true` line a
 * human just added) is never overwritten: journals are merged as a union with
 * the state branch (as `push` does), and a state file keeps every kill-switch
 * line either side added.
 */
import { mergeStateText, type MergeStrategy } from '../../core/schedule/merge-state.js';
import { hasPauseLine } from '../../core/state/state-file.js';

export interface PullInput {
  merge: MergeStrategy;
  local: string | null;
  remote: string;
  /**
   * The file as the working tree had it at the last sync (pull or push), from
   * the synced state commit — or, with no sync record, the checked-out commit's
   * version; null when it did not exist then.
   */
  synced: string | null;
  /** Whether the checked-out branch changed the file since the state branch last saw it (a human edit on main). */
  changedOnCheckout: boolean;
  /** The file as the state branch last saw it on the checked-out branch (base for a human edit on main). */
  seen: string | null;
}

export interface PullDecision {
  next: string;
  action: 'taken' | 'merged' | 'kept';
}

/**
 * @example
 * ```ts
 * decidePull({ merge: 'jsonl', local: 'a\nb\n', remote: 'a\nc\n', synced: 'a\n', changedOnCheckout: false, seen: null });
 * // → { next: 'a\nb\nc\n', action: 'merged' } — the local spend line b survives
 * ```
 */
export function decidePull(input: PullInput): PullDecision {
  const { merge, local, remote } = input;
  if (local === null) return { next: remote, action: 'taken' };
  const localChanged = local !== input.synced;
  if (!localChanged && !input.changedOnCheckout) return { next: remote, action: 'taken' };
  const base = localChanged ? input.synced : input.seen;
  if (merge !== 'state-md') return { next: mergeStateText(merge, { base, local, remote, prefer: 'local' }) ?? local, action: 'merged' };
  // A human changed the state file (here or on the checked-out branch): their version wins; the next tick
  // rewrites our blocks. A pause line the state branch gained meanwhile is kept too.
  if (hasPauseLine(remote) && !hasPauseLine(local) && !(base !== null && hasPauseLine(base))) return { next: remote, action: 'taken' };
  return { next: local, action: 'kept' };
}
