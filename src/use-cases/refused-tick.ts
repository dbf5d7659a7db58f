/**
 * A tick refused before any model call — an unmet precondition, no sandbox —
 * is a failed tick (run log `precondition-failed`, a STATE.md note, and a row
 * in the store's run history on Postgres), never a quiet no-op. Ticks the
 * engine halts (circuit open, cap reached, awaiting resume) are recorded by
 * the engine itself (`halted-tick` run-log lines) and by each entry point's
 * run history, so every entry point — `run`, `run --due`, `worker` — shows
 * every refused tick.
 */
import type { TickResult } from '../core/engine/tick-result.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { AgentBackend, Clock } from '../core/ports/index.js';
import { isLoopRuntimeError } from '../core/errors.js';
import type { LoadedProject } from '../project/load-project.js';
import { redactorFor, redactStrings } from '../composition/wiring.js';
import type { ProjectStores } from '../composition/stores/project-stores.js';
// Static: every tick checks its preconditions first; an import() from this module (itself loaded with the tick's
// code) only added a facade file for the ESM loader to read.
import { checkPreconditions, preconditionError } from './preconditions.js';
// Static as well: the tick these refusals stand for loads both with the engine; an `import()` here split them off the
// engine's chunk as entry points of their own (two more files on every tick).
import { toTickRecord } from '../core/engine/tick-record.js';
import { SequentialIds } from '../core/engine/sequential-ids.js';

/** What a refusal needs of the tick's options. */
export interface RefusalOptions {
  env: Record<string, string | undefined>;
  clock: Clock;
  dryRun: boolean;
  backend?: AgentBackend;
  /** The project's shared stores: the refused tick goes to their run history too (files: the run log is it). */
  stores?: Pick<ProjectStores, 'recordTicks'> | undefined;
}

/**
 * Throws `PRECONDITION_FAILED` (exit 3) naming every unmet precondition and
 * its fix; a real tick is first recorded as failed (run log, STATE.md note),
 * never as a quiet no-op.
 */
export async function refuseUnmetPreconditions(project: LoadedProject, plan: ExecutionPlan, options: RefusalOptions): Promise<void> {
  const problems = await checkPreconditions(project.root, plan, { env: options.env, dryRun: options.dryRun, backendInjected: Boolean(options.backend) });
  if (problems.length === 0) return;
  const error = preconditionError(plan, problems);
  const message = `${problems.map((problem) => problem.message).join(' ')} To fix: ${problems.map((problem) => problem.fix).join(' Then: ')}`;
  if (!options.dryRun) await recordRefusedTick(project, plan, options, message);
  throw error;
}

/**
 * `create()` (the tick's `createLoopRuntime`), with a missing sandbox for the verification commands recorded as a
 * refused tick before any model call — for `run` and a fleet worker's tick alike.
 */
export async function refusingWithoutSandbox<T>(project: LoadedProject, plan: ExecutionPlan, options: RefusalOptions, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (!options.dryRun && isLoopRuntimeError(error) && error.code === 'SANDBOX_UNAVAILABLE') await recordRefusedTick(project, plan, options, redactorFor(options.env, project.root)(error.message)).catch(() => undefined);
    throw error;
  }
}

/** A tick refused before any model call (unmet precondition, no sandbox): a failed tick in the run log and a STATE.md note. */
export async function recordRefusedTick(project: LoadedProject, plan: ExecutionPlan, options: RefusalOptions, message: string): Promise<void> {
  const { stateWriterFor } = await import('../composition/project-adapters.js');
  const now = options.clock.now();
  const result: TickResult = {
    tickId: new SequentialIds(options.clock).next('tick'),
    patternId: plan.pattern.id,
    level: plan.level,
    startedAt: now,
    finishedAt: now,
    tokens: 0,
    budget: { spentToday: 0, dailyTokenCap: plan.dailyTokenCap },
    steps: [{ phase: 'precondition', tokens: 0, note: message }],
    kind: 'failed',
    phase: 'precondition',
    message,
    retryable: false,
  };
  const redact = redactorFor(options.env, project.root);
  const writer = stateWriterFor(project.root, plan, redact);
  await writer.recordTick({ ...toTickRecord(result), kind: 'precondition-failed' });
  await options.stores?.recordTicks([redactStrings(result, redact)], options.backend?.name ?? plan.backend.name);
}

