/**
 * `loop-runtime worker`: a long-lived fleet worker serving a set of
 * repositories. Every `pollMs` it decides which of their configured loops
 * are due (cadence and the fleet's run history) and enqueues each due loop's
 * tick for the current schedule slot; the tick's workflow id
 * (`tick:<scope>:<loop>:<slot>`) makes every worker's enqueue of one slot the
 * same tick, and the partitioned queue runs one tick per loop fleet-wide.
 * Each tick is wired through the same composition root as `run`
 * (`createLoopRuntime` over the Postgres stores), then made durable.
 */
import { LoopRuntimeError } from '../core/errors.js';
import type { Clock } from '../core/ports/index.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import { loadProject, resolvePlan, type LoadedProject } from '../project/load-project.js';
import { excludeRuntimeFiles } from '../adapters/git/exclude-runtime-files.js';
import { createLoopRuntime } from '../composition/create-runtime.js';
import { refuseUnmetPreconditions, refusingWithoutSandbox } from '../use-cases/refused-tick.js';
import { evaluateDueLoops } from '../use-cases/due-loops.js';
import { redactorFor } from '../composition/wiring.js';
import { chooseStore, DATABASE_URL_VARIABLE } from '../composition/stores/store-choice.js';
import { postgresRunHistory, postgresStores, projectScope, sharedDatabase } from '../composition/stores/postgres-stores.js';
import { awaitApproval, serveApprovals } from './approval-workflow.js';
import { FleetWorker, tickWorkflowId, type FleetTickInput } from './fleet-worker.js';
import { postgresTickLease } from './tick-lease.js';
import { isInterrupted } from '../core/engine/tick-result.js';

export interface FleetServiceOptions {
  repositories: readonly string[];
  databaseUrl: string;
  executorId: string;
  env: Record<string, string | undefined>;
  clock: Clock;
  /** How often to look for due loops (default 30 s). */
  pollMs?: number;
  recoveryIntervalMs?: number;
  allowUnsandboxed?: boolean;
  /** One line per event: `enqueued <workflow id>`, `tick <workflow id> <kind>`, errors. */
  report?: (line: string) => void;
}

interface ServedRepository {
  root: string;
  scope: string;
}

export interface FleetService {
  readonly worker: FleetWorker;
  readonly repositories: readonly ServedRepository[];
  /** Enqueues the due loops now (what each poll does); returns the workflow ids enqueued. */
  enqueueDue(): Promise<string[]>;
  /**
   * Stops polling, lets the running ticks finish (up to `drainMs`), then interrupts the ticks still running — each
   * settles like a `run` stopped by Ctrl-C (spend settled, change kept, run-log line) within `settleMs` — and leaves
   * the fleet. `signal` names the stop for the ticks' notes. Returns how many ticks were interrupted.
   */
  stop(options?: FleetStopOptions): Promise<{ interrupted: number }>;
}

export interface FleetStopOptions {
  drainMs?: number;
  /** After the drain, how long an interrupted tick gets to settle (default 60 s); DBOS waits drain + settle. */
  settleMs?: number;
  /** The stop signal's name (`SIGTERM`), the abort's reason. */
  signal?: string;
}

/** The schedule slot of `now` for a loop: its cadence's minimum interval, aligned to the epoch. */
export function scheduleSlot(plan: ExecutionPlan, now: number): string {
  const width = Math.max(60_000, plan.cadence.minIntervalMs);
  return new Date(Math.floor(now / width) * width).toISOString();
}

async function load(root: string): Promise<LoadedProject> {
  const loaded = await loadProject(root);
  if (!loaded.ok) {
    throw new LoopRuntimeError('CONFIG_INVALID', `${root}: ${loaded.issues.length} configuration problem(s): ${loaded.issues.map((issue) => `${issue.file}:${issue.line} ${issue.message}`).join('; ')}`, {
      fix: `run \`loop-runtime validate --cwd ${root}\`.`,
    });
  }
  return loaded.project;
}

/**
 * @example
 * ```ts
 * const service = await startFleetService({ repositories: ['/srv/api'], databaseUrl, executorId: `${hostname()}-${process.pid}`, env: process.env, clock: systemClock });
 * process.once('SIGTERM', () => void service.stop({ drainMs: 600_000, settleMs: 60_000, signal: 'SIGTERM' }));
 * ```
 */
export async function startFleetService(options: FleetServiceOptions): Promise<FleetService> {
  const report = options.report ?? (() => undefined);
  const served: ServedRepository[] = [];
  for (const root of options.repositories) {
    const project = await load(root);
    // A worker's repositories live in its store: a repository pinned to files (or to another database) is a config error.
    const choice = chooseStore(project.settings, { ...options.env, LOOP_RUNTIME_DATABASE_URL: options.databaseUrl });
    if (choice.kind !== 'postgres' || choice.url !== options.databaseUrl) {
      throw new LoopRuntimeError('CONFIG_INVALID', `${root} keeps its state in ${choice.kind === 'files' ? 'files (store: files in LOOP.md)' : `another database (${choice.reason})`}, not in this worker's fleet store.`, {
        fix: 'remove store: from its LOOP.md (or point it at the same variable), or serve it with `loop-runtime run --due` instead.',
      });
    }
    // The worker writes each repository's event journal under its checkout: keep it out of commits.
    await excludeRuntimeFiles(project.root);
    served.push({ root: project.root, scope: await projectScope(project.root, choice.scope) });
  }
  const byScope = new Map(served.map((repository) => [repository.scope, repository]));
  const database = await sharedDatabase(options.databaseUrl);
  /** The repository of `scope`; `what` names the workflow that asked (a worker must serve every repository of its fleet). */
  const servedAt = (scope: string, what = 'one of its workflows'): ServedRepository => {
    const repository = byScope.get(scope);
    if (repository) return repository;
    throw new LoopRuntimeError('CONFIG_INVALID', `This worker does not serve ${scope}, but took ${what}.`, {
      fix: 'give every worker of a fleet the same repositories (--repo / --repos-file).',
    });
  };
  /** The fleet store of one repository: every store call of a worker goes to this worker's database. */
  const storesFor = (project: LoadedProject, scope: string) =>
    postgresStores(project, { kind: 'postgres', url: options.databaseUrl, variable: DATABASE_URL_VARIABLE, scope, reason: 'worker' }, options.clock);
  // Decisions on escalated changes are acted on by whichever worker runs the approval's wait (see approval-workflow.ts).
  serveApprovals(async (scope) => {
    const project = await load(servedAt(scope).root);
    const stores = await storesFor(project, scope);
    return {
      project,
      clock: options.clock,
      env: options.env,
      deliveryLedger: stores.deliveryLedger(),
      outcomes: stores.outcomes(),
      history: postgresRunHistory(database, scope),
      worker: options.executorId,
    };
  });

  // Aborted when a stop outlasts its drain: every running tick stops its call, settles and records itself as `run` does.
  const ticksStop = new AbortController();
  let interrupted = 0;
  const worker = await FleetWorker.start({
    databaseUrl: options.databaseUrl,
    executorId: options.executorId,
    ...(options.recoveryIntervalMs ? { recoveryIntervalMs: options.recoveryIntervalMs } : {}),
    async wire(input: FleetTickInput) {
      const repository = servedAt(input.scope, `its tick ${tickWorkflowId(input)} from the queue`);
      // Read again for every tick: a LOOP.md changed since the worker started applies to the next tick.
      const project = await load(repository.root);
      const resolved = await resolvePlan(project, input.patternId);
      if (!resolved.ok) throw new LoopRuntimeError('CONFIG_INVALID', `${repository.root}: ${resolved.issues.map((issue) => issue.message).join('; ')}`);
      // What `run` refuses before any model call, this tick refuses too (recorded as a failed tick in the run log
      // and STATE.md on this worker's disk): a tick that cannot finish — no agent CLI or key here, no remote, no
      // GitHub token for a pull request, no sandbox — spends nothing. The workflow ends in error, once per slot.
      const stores = await storesFor(project, input.scope);
      // The refused tick goes to the fleet's run history too, so `history` on any checkout shows it.
      const refusal = { env: options.env, clock: options.clock, dryRun: false, stores };
      await refuseUnmetPreconditions(project, resolved.plan, refusal);
      const runtime = await refusingWithoutSandbox(project, resolved.plan, refusal, () =>
        createLoopRuntime(project, resolved.plan, {
          dryRun: false,
          env: options.env,
          clock: options.clock,
          stores,
          allowUnsandboxed: options.allowUnsandboxed ?? false,
          signal: ticksStop.signal,
          log: (line) => report(`${input.patternId}: ${line}`),
        }),
      );
      return {
        plan: resolved.plan,
        ports: runtime.ports,
        budgetLedger: stores.budgetLedger(resolved.plan, runtime.ports.backend.name),
        clock: options.clock,
        history: postgresRunHistory(database, input.scope),
        onEscalated: (result) => awaitApproval(input.scope, result, { root: project.root, worktreesDir: project.settings?.worktreesDir ?? null, clock: options.clock }, options.executorId),
        // The lease a manual `run` of this loop takes: the two never overlap.
        loopLease: postgresTickLease({ database, clock: options.clock, scope: input.scope, plan: resolved.plan, holder: `fleet worker ${options.executorId}`, tickId: `tick-${tickWorkflowId(input)}` }),
        // What surrounds `run`'s tick surrounds this one: the same piece (recovery, stranded deliveries, telemetry, the
        // event journal `serve` tails, outcome tracking), made safe to repeat for a tick resumed on another worker.
        async surround({ step, tickId, resumed }) {
          const { openTickSession } = await import('../composition/tick-session.js');
          const redact = redactorFor(options.env, project.root);
          const session = await openTickSession({
            project,
            plan: resolved.plan,
            clock: options.clock,
            env: options.env,
            dryRun: false,
            deliveryLedger: stores.deliveryLedger(),
            outcomes: stores.outcomes(),
            note: (line) => report(redact(`${input.patternId}: ${line}`)),
            step,
            resume: { tickId, resumed },
          });
          return {
            observer: session.observer,
            async finish(ticks) {
              for (const tick of ticks) {
                if (!isInterrupted(tick)) continue;
                interrupted++;
                report(`tick ${tickId} interrupted past the drain: settled (${tick.tokens} tokens) and recorded`);
              }
              const { proposals } = await session.finish(ticks);
              if (proposals > 0) report(`${input.patternId}: outcomes: following ${proposals} delivered change(s) of ${tickId}`);
            },
          };
        },
      };
    },
  });

  let polling: NodeJS.Timeout | null = null;
  let stopped = false;
  const lastEnqueued = new Map<string, string>();
  const enqueueDue = async (): Promise<string[]> => {
    const enqueued: string[] = [];
    for (const repository of served) {
      if (stopped) break;
      const project = await load(repository.root);
      const now = options.clock.now();
      const stores = await storesFor(project, repository.scope);
      const due = await evaluateDueLoops(project, now, { stores });
      for (const decision of due.decisions) {
        const plan = due.plans.get(decision.id);
        if (!decision.due || !plan) continue;
        const id = await worker.enqueueTick({ scope: repository.scope, patternId: decision.id, slot: scheduleSlot(plan, now), startedAt: now });
        enqueued.push(id);
        // Enqueued again at every poll until the tick is recorded (the same tick): reported once.
        const key = `${repository.scope}/${decision.id}`;
        if (lastEnqueued.get(key) !== id) report(`enqueued ${id}`);
        lastEnqueued.set(key, id);
      }
    }
    return enqueued;
  };
  const poll = () => {
    polling = setTimeout(() => {
      void enqueueDue()
        .catch((error: unknown) => report(`poll failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          if (!stopped) poll();
        });
    }, options.pollMs ?? 30_000);
  };
  await enqueueDue().catch((error: unknown) => report(`poll failed: ${error instanceof Error ? error.message : String(error)}`));
  poll();

  return {
    worker,
    repositories: served,
    enqueueDue,
    async stop(stopOptions = {}) {
      stopped = true;
      if (polling) clearTimeout(polling);
      const { drainMs, settleMs = 60_000 } = stopOptions;
      // Past the drain, the ticks still running are interrupted and get `settleMs` to settle: a tick cut off by the
      // shutdown instead would leave its reservation open (charged in full) until another worker resumed it.
      const interruptAt = drainMs === undefined ? null : setTimeout(() => ticksStop.abort(stopOptions.signal ?? 'SIGTERM'), drainMs);
      // Approval waits hold the drain up only until recv's next poll (≤ 10 s): DBOS then abandons them, unrecorded, and
      // another worker's sweep resumes them (test/fleet-approval.test.ts stops two workers with a wait pending).
      try {
        await worker.stop(drainMs === undefined ? {} : { drainMs: drainMs + settleMs });
      } finally {
        if (interruptAt) clearTimeout(interruptAt);
      }
      serveApprovals(null);
      return { interrupted };
    },
  };
}
