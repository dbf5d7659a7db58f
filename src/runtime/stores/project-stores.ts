/**
 * The stores a project's ticks share — budget ledger, attempt ledger, loop
 * and item leases, delivery ledger, run history — behind one interface, so
 * every entry point (run, run --due, approve, status, serve, worker) gets
 * the same ones from `openProjectStores`. Files by default; the fleet store
 * in Postgres when `store:` or `LOOP_RUNTIME_DATABASE_URL` says so.
 */
import type { TickResult } from '../../core/engine/tick-result.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { AttemptLedger, BudgetLedger, Clock, ItemLeases } from '../../core/ports/index.js';
import type { PastTick } from '../../core/schedule/run-history.js';
import type { DeliveryLedgerStore } from '../../adapters/delivery/delivery-flow.js';
import type { RunHistoryEntry } from '../../adapters/postgres/postgres-run-history.js';
import type { LoadedProject } from '../../project/load-project.js';
import { chooseStore, type StoreChoice } from './store-choice.js';

/** A held loop lease (one tick per loop). */
export interface HeldLoopLease {
  /** Set when the lease was taken over from a dead or unreadable holder (file leases), for the run's notes. */
  readonly recovered?: { reason: string };
  release(result?: { outcome?: string; tickKind?: string; tickId?: string; startedAt?: number }): Promise<void>;
}

export interface RunQuery {
  patternId?: string;
  /** Only ticks started at or after this time (epoch ms). */
  since?: number;
  limit?: number;
}

export interface ProjectStores {
  readonly kind: StoreChoice['kind'];
  /** Where the shared state is, for humans: `files under .loop-runtime/` or the database (no password) and scope. */
  readonly description: string;
  budgetLedger(plan: ExecutionPlan, backendName: string): BudgetLedger;
  /** Spend per loop on one UTC day (one read per run log for files). */
  spentByLoopOn(day: string, plans: readonly ExecutionPlan[]): Promise<Map<string, number>>;
  attempts(plan: ExecutionPlan, backendName: string, redact: (text: string) => string): AttemptLedger;
  itemLeases(plan: ExecutionPlan): ItemLeases;
  /** Takes the loop's lease or throws `LEASE_HELD`. */
  acquireLoopLease(plan: ExecutionPlan): Promise<HeldLoopLease>;
  /** The delivery ledger shared by every worker; undefined: the file beside the repository. */
  deliveryLedger(): DeliveryLedgerStore | undefined;
  /** Records finished ticks in the run history (files: the state writer's run log already has them). */
  recordTicks(ticks: readonly TickResult[]): Promise<void>;
  /** Past ticks of these loops since `since` that only this store knows (files: none beyond the run log). */
  pastTicks(loops: readonly string[], since: number): Promise<PastTick[]>;
  /** The run history, newest first; null for files (the run log is the history). */
  runs(query: RunQuery): Promise<RunHistoryEntry[] | null>;
  close(): Promise<void>;
}

export interface OpenStoresOptions {
  env: Record<string, string | undefined>;
  clock: Clock;
}

/**
 * @example
 * ```ts
 * const stores = await openProjectStores(project, { env: process.env, clock: systemClock });
 * const ledger = stores.budgetLedger(plan, 'claude-code'); // PostgresBudgetLedger when LOOP_RUNTIME_DATABASE_URL is set
 * ```
 */
export async function openProjectStores(project: LoadedProject, options: OpenStoresOptions): Promise<ProjectStores> {
  const choice = chooseStore(project.settings, options.env);
  if (choice.kind === 'files') return (await import('./file-stores.js')).fileStores(project, options.clock);
  const { loadFleetModule } = await import('../../adapters/postgres/fleet-packages.js');
  return (await loadFleetModule(() => import('./postgres-stores.js'), choice.reason)).postgresStores(project, choice, options.clock);
}
