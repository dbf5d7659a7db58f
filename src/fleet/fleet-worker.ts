/**
 * A fleet worker: runs ticks as DBOS workflows on the fleet's Postgres.
 *
 * - Each tick is the workflow `loop-runtime.tick` with id
 *   `tick:<scope>:<pattern>:<slot>`: one tick per loop and slot, however
 *   many workers enqueue it.
 * - Ticks go through one partitioned queue keyed by `<scope>/<pattern>` with
 *   a partition concurrency of 1: at most one tick per loop runs fleet-wide
 *   (a dead worker's tick still counts until it is recovered).
 * - Every port call is a durable step (`durablePorts`): a tick interrupted at
 *   any point resumes on another worker from its last completed step.
 * - Recovery across machines: DBOS's open-source runtime only recovers its
 *   own executor's workflows at launch. Each worker therefore holds a
 *   session-level advisory lock on its executor id for as long as it lives;
 *   a worker whose lock can be taken is dead (Postgres ends a session whose
 *   client is gone), and the sweeper hands its pending workflows back to
 *   their queue with DBOS's public `DBOS.resumeWorkflows` (which keeps each
 *   tick's partition), found with `DBOS.listWorkflows`. Nothing here reaches
 *   into DBOS's internals: which ticks run in this process we count ourselves.
 */
import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { executorLockKey, LivenessSession } from './liveness.js';
import { LoopEngine } from '../core/engine/loop-engine.js';
import { LoopRuntimeError } from '../core/errors.js';
import { describeDatabase } from '../adapters/postgres/pg-errors.js';
import { throughOutage } from './through-outage.js';
import { durablePorts, workflowIds, type StepRunner } from './durable-ports.js';
import { holdTickLease } from './tick-lease.js';
import { runningWorkflowIds, whileRunning } from './running-workflows.js';
import type { FleetTickInput, FleetTickResult, FleetWorkerOptions, TickWiring } from './fleet-tick-types.js';
import { systemDatabaseUrl } from './system-database-url.js';

export type { FleetTickInput, FleetTickResult, FleetWorkerOptions, TickSurround, TickSurroundContext, TickWiring, WiredTick } from './fleet-tick-types.js';

export const TICK_WORKFLOW = 'loop-runtime.tick';
export const TICK_QUEUE = 'loop-runtime-ticks';

export function tickWorkflowId(input: Pick<FleetTickInput, 'scope' | 'patternId' | 'slot'>): string {
  return `tick:${input.scope}:${input.patternId}:${input.slot}`;
}

let wiring: TickWiring | null = null;

async function runTick(input: FleetTickInput): Promise<FleetTickResult> {
  const workflowId = DBOS.workflowID ?? tickWorkflowId(input);
  return whileRunning(() => runTickBody(input, workflowId), workflowId);
}

async function runTickBody(input: FleetTickInput, workflowId: string): Promise<FleetTickResult> {
  if (!wiring) throw new LoopRuntimeError('INTERNAL', 'A tick workflow ran in a process that is not a fleet worker.');
  const wired = await wiring(input);
  const step: StepRunner = (name, body) => DBOS.runStep(() => throughOutage(body), { name });
  // Before any other step: a tick that finds a manual run holding its loop calls no model and touches no ledger.
  const lease = wired.loopLease ? await holdTickLease(wired.loopLease, workflowId, step) : null;
  if (lease && !lease.ok) return { kind: 'skipped-overlap', patternId: input.patternId, workflowId, holder: lease.holder, holderTickId: lease.tickId };
  try {
    // A run of the workflow records its own attempt id as a step; a run that reads back another's resumes that tick.
    const attempt = randomUUID();
    const resumed = wired.surround ? (await step('tick.attempt', async () => attempt)) !== attempt : false;
    // The engine's first id is the tick's (workflowIds): `tick-<workflow id>`.
    const surround = wired.surround ? await wired.surround({ step, tickId: workflowIds(workflowId).next('tick'), resumed }) : null;
    const durable = durablePorts(surround ? { ...wired.ports, observer: surround.observer } : wired.ports, step, { workflowId, startedAt: input.startedAt, clock: wired.clock, budgetLedger: wired.budgetLedger });
    // Not a step: asked on every run of the workflow, so a replay on another worker fences out the first one.
    const ports = lease?.ok ? { ...durable, lease: { specificationVersion: 'tick-lease-v1' as const, fence: lease.fence, stillHeld: () => throughOutage(() => lease.stillHeld()) } } : durable;
    const result = await new LoopEngine(wired.plan, ports).tick();
    const history = wired.history;
    if (history) await step('history.record', () => history.record(result, wired.ports.backend.name));
    await surround?.finish([result]);
    if (result.kind === 'escalated' && wired.onEscalated) await wired.onEscalated(result);
    return result;
  } finally {
    // Not a step (see tick-lease.ts); waits out an outage, since a lease left behind would skip the loop's next slot.
    await throughOutage(() => lease?.release() ?? Promise.resolve()).catch(() => undefined);
  }
}

const tickWorkflow = DBOS.registerWorkflow(runTick, { name: TICK_WORKFLOW });

const LAUNCH_LOCK_KEY = 'loop-runtime-dbos-launch';

/** The PENDING workflows of one executor, by DBOS's public listing (no inputs or outputs loaded). */
async function pendingOf(executorId?: string): Promise<Array<{ workflowID: string; executorId?: string; queueName?: string; updatedAt?: number }>> {
  return DBOS.listWorkflows({ status: 'PENDING', ...(executorId ? { executorId } : {}), loadInput: false, loadOutput: false });
}

/**
 * Hands workflows back to the queue they were on (their partition kept: DBOS leaves the partition key as it was),
 * through DBOS's public `resumeWorkflows`; one not on a queue goes to DBOS's internal queue, as its own recovery does.
 */
async function handBack(workflows: ReadonlyArray<{ workflowID: string; queueName?: string }>): Promise<void> {
  const byQueue = new Map<string | undefined, string[]>();
  for (const workflow of workflows) byQueue.set(workflow.queueName, [...(byQueue.get(workflow.queueName) ?? []), workflow.workflowID]);
  for (const [queueName, ids] of byQueue) await DBOS.resumeWorkflows(ids, queueName ? { queueName } : undefined);
}

/**
 * One per process (DBOS is a process-wide runtime).
 *
 * @example
 * ```ts
 * const worker = await FleetWorker.start({ databaseUrl, executorId: `${hostname()}-${process.pid}`, wire });
 * await worker.enqueueTick({ scope: 'acme/demo', patternId: 'daily-triage', slot: '2026-11-23T08:00Z', startedAt: Date.now() });
 * ```
 */
export class FleetWorker {
  private sweeping: NodeJS.Timeout | null = null;
  /** Our own PENDING ticks not running here at the last sweep: orphaned if they still are at the next. */
  private suspects = new Set<string>();

  private constructor(
    readonly executorId: string,
    private readonly liveness: LivenessSession,
    private readonly databaseUrl: string,
    /** After our session reconnected, how long the other workers get to take their locks again. */
    private readonly reconnectGraceMs: number,
    /** How long a tick taken from the queue may take to start running here before it can be an orphan. */
    private readonly dispatchGraceMs: number = 60_000,
  ) {}

  static async start(options: FleetWorkerOptions): Promise<FleetWorker> {
    if (wiring) throw new LoopRuntimeError('USAGE', 'A fleet worker is already running in this process.', { fix: 'start one worker per process.' });
    const database = describeDatabase(options.databaseUrl);
    let liveness: LivenessSession;
    try {
      // Held for the life of this process: the proof, to every other worker, that our ticks are not abandoned.
      liveness = await LivenessSession.open(options.databaseUrl, options.executorId);
    } catch (cause) {
      throw new LoopRuntimeError('STATE_FAILED', `The fleet worker cannot reach its database at ${database}.`, {
        cause,
        retryable: true,
        fix: 'start PostgreSQL or correct LOOP_RUNTIME_DATABASE_URL.',
      });
    }
    wiring = options.wire;
    DBOS.setConfig({
      name: 'loop-runtime',
      systemDatabaseUrl: systemDatabaseUrl(options.databaseUrl),
      executorID: options.executorId,
      applicationVersion: options.applicationVersion ?? 'loop-runtime',
      logLevel: options.logLevel ?? 'warn',
    });
    // DBOS migrates its system schema at launch; two workers migrating a fresh database at once deadlock, so launches
    // take turns under a session advisory lock. It is polled, not waited for: a session blocked in pg_advisory_lock
    // holds a snapshot, and the migration's CREATE INDEX CONCURRENTLY would wait for it forever.
    while (!(await liveness.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken', [LAUNCH_LOCK_KEY])).rows[0]?.taken) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    try {
      await DBOS.launch();
      await DBOS.registerQueue(TICK_QUEUE, {
        partitionConcurrency: 1,
        minPollingIntervalMs: 100,
        ...(options.ticksPerWorker ? { workerConcurrency: options.ticksPerWorker } : {}),
        onConflict: 'always_update',
      });
    } catch (cause) {
      wiring = null;
      await liveness.close();
      throw cause;
    } finally {
      await liveness.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [LAUNCH_LOCK_KEY]).catch(() => undefined);
    }
    const interval = options.recoveryIntervalMs ?? 5_000;
    const worker = new FleetWorker(options.executorId, liveness, options.databaseUrl, Math.max(2_000, 3 * interval));
    let busy = false;
    const sweep = async () => {
      if (busy) return;
      busy = true;
      try {
        await worker.recoverOrphans();
        // Not inside `onSweep?.(…)`: an optional call skips evaluating its argument when there is no listener.
        const recovered = await worker.recoverDeadWorkers();
        options.onSweep?.(recovered);
      } finally {
        busy = false;
      }
    };
    // A sweep that fails (database restarting) is simply tried again at the next interval.
    worker.sweeping = setInterval(() => void sweep().catch(() => undefined), interval);
    return worker;
  }

  /** Enqueues the tick of one loop and slot; a second enqueue of the same slot is the same tick. */
  async enqueueTick(input: FleetTickInput): Promise<string> {
    const workflowID = tickWorkflowId(input);
    await DBOS.startWorkflow(tickWorkflow, { workflowID, queueName: TICK_QUEUE, enqueueOptions: { queuePartitionKey: `${input.scope}/${input.patternId}` } })(input);
    return workflowID;
  }

  /** Waits for a tick's result, whichever worker runs it. */
  async result(workflowId: string): Promise<FleetTickResult | null> {
    return DBOS.getResult<FleetTickResult>(workflowId);
  }

  /**
   * Hands the pending ticks of every dead worker back to the queue. A worker
   * is dead when its liveness lock can be taken. Returns the executor ids
   * recovered.
   */
  async recoverDeadWorkers(): Promise<string[]> {
    // The database just came back: every worker lost its lock with it and is taking it again, none is dead.
    if (this.liveness.sinceConnected() < this.reconnectGraceMs) return [];
    const executors = new Set((await pendingOf()).flatMap((workflow) => (workflow.executorId && workflow.executorId !== this.executorId ? [workflow.executorId] : [])));
    const recovered: string[] = [];
    for (const executorId of executors) {
      const key = executorLockKey(executorId);
      const taken = await this.liveness.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken', [key]);
      if (!taken.rows[0]?.taken) continue;
      try {
        // Read under the dead worker's lock: no other sweeper hands these back meanwhile.
        await handBack(await pendingOf(executorId));
        recovered.push(executorId);
      } finally {
        await this.liveness.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
      }
    }
    return recovered;
  }

  /**
   * Hands back our own ticks that are PENDING under our executor id but no
   * longer run in this process — a tick whose run failed while the database
   * was unreachable, so its status could not be written. Seen at two sweeps
   * in a row and taken from the queue more than `dispatchGraceMs` ago by the
   * database's clock (a tick just taken from the queue is PENDING before its
   * body runs and counts as running here), it goes back to its queue, keeping
   * its partition (one tick per loop).
   */
  async recoverOrphans(): Promise<string[]> {
    const here = runningWorkflowIds();
    const now = Number((await this.liveness.query<{ now: string }>('SELECT (EXTRACT(EPOCH FROM now()) * 1000)::bigint AS now')).rows[0]?.now ?? 0);
    const orphans = (await pendingOf(this.executorId)).filter((workflow) => !here.has(workflow.workflowID) && (workflow.updatedAt ?? 0) < now - this.dispatchGraceMs);
    const confirmed = orphans.filter((workflow) => this.suspects.has(workflow.workflowID));
    this.suspects = new Set(orphans.filter((workflow) => !confirmed.includes(workflow)).map((workflow) => workflow.workflowID));
    if (confirmed.length === 0) return [];
    // Checked again just before: one that started running here meanwhile is not handed back.
    const still = runningWorkflowIds();
    const orphaned = confirmed.filter((workflow) => !still.has(workflow.workflowID));
    await handBack(orphaned);
    return orphaned.map((workflow) => workflow.workflowID);
  }

  /**
   * Stops the worker. With `drainMs`, takes no new tick from the queue and
   * waits up to that long for the ticks it is running to finish (SIGTERM); a
   * tick still running after it is resumed by another worker's sweep.
   */
  async stop(options: { drainMs?: number } = {}): Promise<void> {
    if (this.sweeping) clearInterval(this.sweeping);
    await DBOS.shutdown(options.drainMs !== undefined ? { workflowCompletionTimeoutMS: options.drainMs } : undefined);
    await this.liveness.close();
    wiring = null;
  }

  get database(): string {
    return describeDatabase(this.databaseUrl);
  }
}
