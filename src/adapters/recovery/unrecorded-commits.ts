/**
 * Commits a killed tick left unrecorded. A tick commits (the worktree
 * manifest marks its entry `merged` with the commit), then delivers, then
 * writes its state file and run-log line. A kill in between leaves a commit,
 * a branch and spend that nothing reports. At the start of the loop's next
 * tick (under its lease, so no tick of that loop is running) every such entry
 * gets the run-log line it never got, marked `recovered: true`, and a note in
 * the state file; `status` shows both.
 */
import { mkdir } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import { appendRunLogLine, parseRunLog, type RunLogLine } from '../../core/state/run-log.js';
import { isoSecond } from '../../core/state/state-blocks.js';
import { updateStateFile } from '../../core/state/state-file.js';
import { parseTimestamp } from '../../core/time/utc-time.js';
import type { WorktreeEntry } from '../../core/workspace/worktree-manifest.js';
import { readTextOrNull, updateFileAtomically, withFileLock, writeTextAtomically } from '../fs/atomic-file.js';
import { WorktreeStore } from '../workspace/git-worktree-store.js';
import type { RecoveredTick } from './recovery-log.js';

export type { RecoveredTick };

/** A tick whose commit had no run-log line, and the line written for it now. */
/** Entries older than this are past the run log's retention (30 days): their lines may have been pruned. */
const LOOKBACK_MS = 29 * 86_400_000;

/**
 * Writes the missing run-log line (and a state-file note) for each of the loop's committed worktree entries
 * whose tick never recorded one. Returns what it recovered.
 *
 * @example
 * ```ts
 * const recovered = await recordUnrecordedCommits('/repo', plan, { now: Date.now(), redact });
 * ```
 */
export async function recordUnrecordedCommits(root: string, plan: ExecutionPlan, options: { now: number; redact: (text: string) => string; worktreesDir?: string | null; exceptTickId?: string }): Promise<RecoveredTick[]> {
  const store = new WorktreeStore(root, options.worktreesDir ?? null);
  if ((await readTextOrNull(store.manifestPath)) === null) return [];
  const committed = (await store.read()).worktrees.filter((entry) => isRecoverable(entry, plan.pattern.id, options.now)).filter((entry) => entry.tickId !== options.exceptTickId);
  if (committed.length === 0) return [];
  const runLogPath = resolve(root, plan.files.runLog);
  const project = basename(resolve(root));
  const recovered: RecoveredTick[] = [];
  await mkdir(dirname(runLogPath), { recursive: true });
  await withFileLock(runLogPath, async () => {
    const old = await readTextOrNull(runLogPath);
    const logged = new Set(parseRunLog(old ?? '').map((entry) => entry.tick_id));
    let text = old;
    for (const entry of committed) {
      if (logged.has(entry.tickId)) continue;
      const tick: RecoveredTick = { tickId: entry.tickId, commit: entry.commit, branch: entry.branch, worktree: entry.id, committedAt: entry.updatedAt ?? entry.createdAt };
      text = appendRunLogLine(text, recoveredLine(tick, entry, plan, options.redact), { now: options.now, project });
      recovered.push(tick);
    }
    if (text !== null && text !== old) await writeTextAtomically(runLogPath, text);
  });
  if (recovered.length === 0) return [];
  await noteRecoveredTicks(root, plan, recovered, options);
  return recovered;
}

/**
 * The state file's note for recovered ticks. Written at recovery, and again by the runtime after the tick that
 * recovered them: a tick clears notes older than its start, and the recovery ran (a second or more) before it.
 */
export async function noteRecoveredTicks(root: string, plan: ExecutionPlan, recovered: readonly RecoveredTick[], options: { now: number; redact: (text: string) => string }): Promise<void> {
  const project = basename(resolve(root));
  await updateFileAtomically(resolve(root, plan.files.state), (old) => {
    const line = recovered.map((tick) => `tick ${tick.tickId} committed ${tick.commit.slice(0, 12)} on ${tick.branch} but was killed before recording it; recorded now (recovered)`).join('; ');
    return updateStateFile(old, { note: { patternId: plan.pattern.id, at: options.now, line: options.redact(line) } }, { project });
  });
}

function isRecoverable(entry: WorktreeEntry, patternId: string, now: number): entry is WorktreeEntry & { tickId: string; commit: string } {
  if (entry.pattern !== patternId || entry.status !== 'merged' || !entry.tickId || !entry.commit) return false;
  const at = parseTimestamp(entry.updatedAt ?? entry.createdAt);
  return !Number.isNaN(at) && at >= now - LOOKBACK_MS;
}

function recoveredLine(tick: RecoveredTick, entry: WorktreeEntry, plan: ExecutionPlan, redact: (text: string) => string): RunLogLine {
  const at = parseTimestamp(entry.createdAt);
  return {
    run_id: isoSecond(Number.isNaN(at) ? parseTimestamp(tick.committedAt) : at),
    pattern: plan.pattern.id,
    duration_s: 0,
    items_found: 1,
    actions_taken: 1,
    escalations: 0,
    // The tick's spend is in the budget journal already; counting it here again would double it.
    tokens_estimate: 0,
    outcome: 'fix-proposed',
    tick_id: tick.tickId,
    level: plan.level,
    kind: 'proposed',
    reason: redact(`the tick was killed after committing ${entry.itemKey ? `${entry.itemKey} ` : ''}and before recording it`),
    commit: tick.commit,
    branch: tick.branch,
    recovered: true,
  };
}
