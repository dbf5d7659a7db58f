/**
 * Changing a loop's level, by the autonomy policy or by `promote`: the new
 * level is written to the loop's LOOP.md, and the change with its reason is
 * recorded in the run log (`kind: level-change`), in outcomes.jsonl and as a
 * note in the state file. Everything written is redacted.
 */
import { basename, join, resolve } from 'node:path';
import type { Level } from '../../core/config/schemas.js';
import { appendRunLogLine } from '../../core/state/run-log.js';
import { isoSecond } from '../../core/state/state-blocks.js';
import { updateStateFile } from '../../core/state/state-file.js';
import { toIsoString } from '../../core/time/utc-time.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import { updateFileAtomically } from '../../adapters/fs/atomic-file.js';
import { writeLoopLevel } from '../../adapters/outcomes/level-file.js';
import type { OutcomeStore } from '../../adapters/outcomes/outcome-store.js';

export interface LevelChangeReport {
  pattern: string;
  from: Level;
  to: Level;
  reason: string;
  by: 'autonomy' | 'human';
  /** The LOOP.md that now holds the level. */
  file: string;
  at: string;
}

export interface LevelChangeRequest {
  plan: ExecutionPlan;
  to: Level;
  reason: string;
  by: 'autonomy' | 'human';
  now: number;
  redact: (text: string) => string;
  /** Where the change is recorded for every process (`ProjectStores.outcomes()`). */
  outcomes: OutcomeStore;
}

/** Writes the level and records the change everywhere a human or a tool will look. */
export async function changeLevel(root: string, request: LevelChangeRequest): Promise<LevelChangeReport> {
  const { plan, to, by, now } = request;
  const reason = request.redact(request.reason);
  const file = await writeLoopLevel(root, plan.pattern.id, to);
  const at = toIsoString(now);
  await request.outcomes.append([{ type: 'level-change', at, pattern: plan.pattern.id, from: plan.level, to, reason, by, file }]);
  const project = basename(resolve(root));
  await updateFileAtomically(join(root, plan.files.runLog), (old) =>
    appendRunLogLine(
      old,
      {
        run_id: isoSecond(now),
        pattern: plan.pattern.id,
        duration_s: 0,
        items_found: 0,
        actions_taken: 0,
        escalations: 0,
        tokens_estimate: 0,
        outcome: 'no-op',
        level: to,
        kind: 'level-change',
        level_from: plan.level,
        reason: `${by === 'autonomy' ? 'autonomy policy' : 'promote by a human'}: ${reason}`,
      },
      { now, pruneDays: 30, project },
    ),
  );
  const how = to === 'L0' ? ` The loop is paused (L0 runs nothing); to resume: \`loop-runtime promote ${plan.pattern.id} --yes\` or set its level in ${file}.` : '';
  await updateFileAtomically(join(root, plan.files.state), (old) =>
    updateStateFile(old, { note: { patternId: plan.pattern.id, at: now, line: `level ${plan.level} → ${to} (${by}): ${reason}.${how}` } }, { project }),
  );
  return { pattern: plan.pattern.id, from: plan.level, to, reason, by, file, at };
}
