/**
 * Recovery at the start of a real tick, under the loop's lease, before any
 * model call: what a kill -9 of an earlier process left is removed or
 * recorded, and reported — in the run's summary, and as one line in
 * `.loop-runtime/recovery.jsonl`, which `status` shows.
 *
 * - temporaries of interrupted atomic writes (`<owned file>.<digits>`), moved to `.loop-runtime/recovered/`;
 * - temporaries of lease files whose creating process is gone (`<lease>.<host>.<pid>.<uuid>.tmp`), removed;
 * - commits a killed tick never recorded, given their run-log line (`recovered: true`).
 *
 * Stale lock directories and lease files are taken over where they are met
 * (`withFileLock`, `FileLeases`), each recorded there.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { removeDeadLeaseTemporaries } from '../leases/lease-file.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import { excludeAtomicTemporaries, ownedAtomicFiles, removeAtomicLeftovers } from './atomic-leftovers.js';
import { recordUnrecordedCommits } from './unrecorded-commits.js';
import { RECOVERY_LOG, type RecoveryRecord } from './recovery-log.js';

export { RECOVERY_LOG, recentRecoveries, type RecoveryRecord } from './recovery-log.js';

export interface RecoveryOptions {
  now: number;
  redact: (text: string) => string;
  worktreesDir?: string | null;
  /**
   * The tick about to run, when it is a fleet tick being resumed: its own commit is finished by the tick (a durable
   * workflow replayed from its last step), not recovered as a killed tick's.
   */
  exceptTickId?: string;
}

/**
 * @example
 * ```ts
 * const record = await recoverAtTickStart('/repo', plan, { now: clock.now(), redact });
 * record?.removedTemporaryFiles; // → ['loop-ledger.json.700828677']
 * ```
 */
export async function recoverAtTickStart(root: string, plan: ExecutionPlan, options: RecoveryOptions): Promise<RecoveryRecord | null> {
  const files = ownedAtomicFiles(root, plan, options.worktreesDir ?? null);
  await excludeAtomicTemporaries(root, files).catch(() => undefined);
  const leaseTemporaries = (await removeDeadLeaseTemporaries([join(root, '.loop-runtime', 'leases'), join(root, '.loop-runtime', 'leases', 'items')])).map((path) => relative(root, path).split(sep).join('/'));
  const removedTemporaryFiles = [...(await removeAtomicLeftovers(root, files)), ...leaseTemporaries];
  const recoveredTicks = await recordUnrecordedCommits(root, plan, options);
  if (removedTemporaryFiles.length === 0 && recoveredTicks.length === 0) return null;
  const record: RecoveryRecord = { at: new Date(options.now).toISOString(), loop: plan.pattern.id, removedTemporaryFiles, recoveredTicks };
  await mkdir(join(root, '.loop-runtime'), { recursive: true });
  // One write() of one line with O_APPEND: concurrent appenders never interleave within a line.
  await appendFile(join(root, RECOVERY_LOG), `${JSON.stringify(record)}\n`, 'utf8');
  return record;
}

/** The human lines for a recovery (run notes, progress). */
export function describeRecovery(record: RecoveryRecord): string[] {
  return [
    ...(record.removedTemporaryFiles.length ? [`recovery: moved ${record.removedTemporaryFiles.length} temporary file(s) an interrupted write left to .loop-runtime/recovered/: ${record.removedTemporaryFiles.join(', ')}`] : []),
    ...record.recoveredTicks.map((tick) => `recovery: tick ${tick.tickId} committed ${tick.commit.slice(0, 12)} on ${tick.branch} but was killed before recording it; its run-log line is written now (recovered)`),
  ];
}
