/**
 * The fleet store: every shared port of a project's ticks in one Postgres,
 * keyed by the project's scope, so ticks of the same loop in any number of
 * processes and machines share one cap, one lease, one delivery ledger and
 * one run history.
 */
import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import { runLogOutcome } from '../../core/engine/tick-result.js';
import { LoopRuntimeError } from '../../core/errors.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { Clock } from '../../core/ports/index.js';
import {
  PostgresAttemptLedger,
  PostgresBudgetLedger,
  PostgresDatabase,
  PostgresDeliveryLedger,
  PostgresItemLeases,
  PostgresKillSwitch,
  PostgresLoopLeases,
  PostgresOutcomeStore,
  PostgresRunHistory,
} from '../../adapters/postgres/index.js';
import { FileKillSwitch } from '../../adapters/kill-switch/kill-switch.js';
import type { LoadedProject } from '../../project/load-project.js';
import { LEASE_MARGIN_MS } from '../../adapters/leases/file-leases.js';
import { killSwitchTarget, type HeldLoopLease, type ProjectStores } from './project-stores.js';
import type { StoreChoice } from './store-choice.js';

/** Databases opened by this process, by URL: one pool however many runtimes open the same store. */
const databases = new Map<string, Promise<PostgresDatabase>>();

/** Opens (once per process) the database at `url`, applying the schema. */
export function sharedDatabase(url: string): Promise<PostgresDatabase> {
  let opened = databases.get(url);
  if (!opened) {
    opened = PostgresDatabase.open({ url, maxConnections: 4 });
    databases.set(url, opened);
    opened.catch(() => databases.delete(url));
  }
  return opened;
}

/**
 * The scope of a repository's rows: `store.scope` when written, else its `origin` remote (`github.com/acme/demo`,
 * the same on every machine that checked it out), else its real path.
 *
 * @example
 * ```ts
 * await projectScope('/srv/demo', null); // → 'github.com/acme/demo'
 * ```
 */
export async function projectScope(root: string, written: string | null): Promise<string> {
  if (written) return written;
  const remote = await promisify(execFile)('git', ['-C', root, 'config', '--get', 'remote.origin.url']).then(
    (result) => result.stdout.trim(),
    () => '',
  );
  const normalized = remote
    .replace(/^[a-z+]+:\/\/([^@/]*@)?/i, '')
    .replace(/^[^@/]+@([^:]+):/, '$1/')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
  return normalized || (await realpath(root).catch(() => root));
}

export async function postgresStores(project: LoadedProject, choice: Extract<StoreChoice, { kind: 'postgres' }>, clock: Clock): Promise<ProjectStores> {
  const [database, scope] = await Promise.all([sharedDatabase(choice.url), projectScope(project.root, choice.scope)]);
  const staleMs = (plan: ExecutionPlan) => plan.timeoutMs + LEASE_MARGIN_MS;
  const history = new PostgresRunHistory({ database, scope });
  const budget = new PostgresBudgetLedger({ database, scope });
  const holder = `${hostname()}:${process.pid}`;
  return {
    kind: 'postgres',
    description: `postgres ${database.name} (scope ${scope})`,
    // Each tick's ledger names its backend, so mock rehearsal spend never counts against a real backend's cap.
    budgetLedger: (_plan, backendName) => new PostgresBudgetLedger({ database, scope, backend: backendName }),
    async spentByLoopOn(day, plans) {
      const spent = new Map<string, number>();
      for (const plan of plans) spent.set(plan.pattern.id, await budget.spentOn(day, plan.pattern.id));
      return spent;
    },
    attempts: (_plan, backendName) => new PostgresAttemptLedger({ database, scope, backend: backendName }),
    killSwitch(target, wiring) {
      const loop = killSwitchTarget(target);
      const plan = loop?.plan;
      const files = { root: project.root, env: wiring.env, ...(wiring.readText ? { readText: wiring.readText } : {}) };
      // The repository's forms only: no patternId, so neither the loop's pause file nor the run log's halts are read.
      const repository = new FileKillSwitch({ ...files, ...(plan ? { stateFile: plan.files.state } : {}) });
      const runLog = plan
        ? new FileKillSwitch({ ...files, patternId: plan.pattern.id, runLog: plan.files.runLog, level: plan.level, ...(wiring.redact ? { redact: wiring.redact } : {}), ...(wiring.backendName ? { backend: wiring.backendName } : {}) })
        : undefined;
      return new PostgresKillSwitch({
        database,
        scope,
        repository,
        now: () => clock.now(),
        ...(loop ? { patternId: loop.patternId } : {}),
        ...(runLog ? { runLog } : {}),
        ...(wiring.redact ? { redact: wiring.redact } : {}),
      });
    },
    itemLeases: (plan) => new PostgresItemLeases({ database, clock, scope, staleMs: staleMs(plan) }),
    async acquireLoopLease(plan): Promise<HeldLoopLease> {
      const stale = staleMs(plan);
      const taken = await new PostgresLoopLeases({ database, clock, scope, staleMs: stale }).acquire({ patternId: plan.pattern.id, holder, tickId: 'pending' });
      if (!taken.ok) {
        throw new LoopRuntimeError('LEASE_HELD', `A tick of ${plan.pattern.id} is already running (${taken.holder}, in the fleet store ${database.name}); this one exits without doing anything.`, {
          detail: { holder: taken.holder, tickId: taken.tickId },
          fix: `wait for the running tick to finish; a holder that stops refreshing its lease is taken over after ${Math.round(stale / 60_000)} minutes.`,
        });
      }
      // Refreshed while the tick runs: a live holder's lease never goes stale.
      const timer = setInterval(() => void taken.refresh().catch(() => false), Math.max(1_000, Math.min(stale / 4, 30_000)));
      timer.unref();
      return {
        fence: taken.fence,
        stillHeld: taken.stillHeld,
        release: async () => {
          clearInterval(timer);
          await taken.release();
        },
      };
    },
    deliveryLedger: () => new PostgresDeliveryLedger({ database, scope }),
    outcomes: () => new PostgresOutcomeStore({ database, scope }),
    async recordTicks(ticks, backend) {
      for (const tick of ticks) await history.record(tick, backend);
    },
    async pastTicks(loops, since) {
      const results = await history.results({ patternIds: loops, since });
      return results.map((result) => ({ loop: result.patternId, at: result.startedAt, outcome: runLogOutcome(result), tickId: result.tickId }));
    },
    spendByTick: (query) => budget.spendByTick(query),
    removeRehearsal: async (patternId) => ({
      spendRecords: await budget.removeRehearsal(patternId),
      outcomes: await new PostgresOutcomeStore({ database, scope }).removeRehearsal(patternId),
      attempts: await new PostgresAttemptLedger({ database, scope }).removeRehearsal(patternId),
      runs: await history.removeRehearsal(patternId),
    }),
    runs: (query) => history.list({ ...(query.patternId ? { patternId: query.patternId } : {}), ...(query.since !== undefined ? { since: query.since } : {}), limit: query.limit ?? 50 }),
    // The pool is shared by the process and exits with it when idle (allowExitOnIdle).
    close: async () => undefined,
  };
}

/** The fleet's run history for one project scope (the worker records its ticks there). */
export function postgresRunHistory(database: PostgresDatabase, scope: string): PostgresRunHistory {
  return new PostgresRunHistory({ database, scope });
}

/** The fleet's loop leases for one project scope (a worker's tick lease takes and refreshes them). */
export function postgresLoopLeases(options: ConstructorParameters<typeof PostgresLoopLeases>[0]): PostgresLoopLeases {
  return new PostgresLoopLeases(options);
}
