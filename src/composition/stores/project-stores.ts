/**
 * The stores a project's ticks share — budget ledger, attempt ledger, loop
 * and item leases, delivery ledger, outcomes, run history — behind one interface, so
 * every entry point (run, run --due, approve, status, serve, worker) gets
 * the same ones from `openProjectStores`. Files by default; the fleet store
 * in Postgres when `store:` or `LOOP_RUNTIME_DATABASE_URL` says so.
 */
import type { TickResult } from '../../core/engine/tick-result.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { AttemptLedger, BudgetLedger, Clock, ItemLeases, StoreKillSwitch, TickLease } from '../../core/ports/index.js';
import type { RunLogEntry } from '../../core/state/run-log.js';
import type { PastTick } from '../../core/schedule/run-history.js';
import type { DeliveryLedgerStore } from '../../adapters/delivery/delivery-flow.js';
import type { OutcomeStore } from '../../adapters/outcomes/outcome-store.js';
import type { RunHistoryEntry } from '../../adapters/postgres/postgres-run-history.js';
import type { LoadedProject } from '../../project/load-project.js';
import type { SpendByTick } from '../../use-cases/outcomes/tick-cost.js';
import { chooseStore, type StoreChoice } from './store-choice.js';

/** A held loop lease (one tick per loop). */
export interface HeldLoopLease {
  /** Set when the lease was taken over from a dead or unreadable holder (file leases), for the run's notes. */
  readonly recovered?: { reason: string };
  /** The fencing number: greater than every earlier holder's of this loop's lease. */
  readonly fence: number;
  /** False once a later holder took the lease over: the tick's engine checks it before every shared write. */
  stillHeld(): Promise<boolean>;
  release(result?: { outcome?: string; tickKind?: string; tickId?: string; startedAt?: number }): Promise<void>;
}

export interface RunQuery {
  patternId?: string;
  /** Only ticks started at or after this time (epoch ms). */
  since?: number;
  limit?: number;
}

/** What a kill switch needs besides the store: where the repository's own forms are read and halts redacted. */
export interface KillSwitchWiring {
  env: Record<string, string | undefined>;
  /** Applied to halt messages before they are stored. */
  redact?: (text: string) => string;
  /** Written as `backend` on run-log halt lines (`"mock"` marks rehearsals). */
  backendName?: string;
  /** Readers shared by a report over many loops (`status`, the console), so each file is read once. */
  readText?: (path: string) => Promise<string | null>;
  readRunLog?: (path: string) => Promise<readonly RunLogEntry[] | null>;
}

/** Whose kill switch: a loop's plan, a loop known only by id, or the project (null). */
export type KillSwitchTarget = ExecutionPlan | { patternId: string; files?: undefined } | null;

/** The loop id and, when the plan resolved, its files. */
export function killSwitchTarget(target: KillSwitchTarget): { patternId: string; plan: ExecutionPlan | null } | null {
  if (!target) return null;
  return 'pattern' in target ? { patternId: target.pattern.id, plan: target } : { patternId: target.patternId, plan: null };
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
  /**
   * The kill switch every process of the project shares: pauses and halts that need a human, for one loop
   * (its plan; `{ patternId }` for a loop whose configuration does not resolve, still pausable) or the project
   * (`null`: `pause --all`). Files: `.loop-runtime/paused/`, the run log's halted lines;
   * Postgres: rows. The repository's forms (root `loop-pause-all`, the state-file line, the env variable) count on both.
   */
  killSwitch(target: KillSwitchTarget, wiring: KillSwitchWiring): StoreKillSwitch;
  /** Takes the loop's lease or throws `LEASE_HELD`. Hand it to the tick's engine (`ports.lease`, via `tickLeasePort`) so a lost lease stops the tick. */
  acquireLoopLease(plan: ExecutionPlan): Promise<HeldLoopLease>;
  /** The delivery ledger shared by every worker; undefined: the file beside the repository. */
  deliveryLedger(): DeliveryLedgerStore | undefined;
  /**
   * The outcome lines (proposals, observations, level changes) every process of the project shares: the one-open-
   * proposal rule, autonomy and metrics read them. Files: `.loop-runtime/outcomes.jsonl`; Postgres: rows.
   */
  outcomes(): OutcomeStore;
  /**
   * Records finished ticks in the run history (files: the state writer's run log already has them), with the backend
   * that ran them (`"mock"` marks a rehearsal, which `removeRehearsal` takes back).
   */
  recordTicks(ticks: readonly TickResult[], backend: string): Promise<void>;
  /** Past ticks of these loops since `since` that only this store knows (files: none beyond the run log). */
  pastTicks(loops: readonly string[], since: number): Promise<PastTick[]>;
  /**
   * Tokens and dollars per tick as the budget ledger settled them, for the one pricing (`tick-cost.ts`):
   * files: `.loop-runtime/spend.jsonl`; Postgres: its rows (optionally one day's, or some ticks').
   */
  spendByTick(query?: { day?: string; tickIds?: readonly string[] }): Promise<SpendByTick>;
  /**
   * Removes one loop's rehearsal from the shared records, for `reset <id> --mock`: the spend the mock backend
   * journalled and its outcome lines (`OutcomeStore.removeRehearsal`); on Postgres also its attempts and run-history
   * rows (files: those are loop-ledger.json and the run log, which `reset-mock.ts` edits with the state file). Files:
   * lines of spend.jsonl and outcomes.jsonl; Postgres: rows. A real backend's records stay. Returns how many went.
   */
  removeRehearsal(patternId: string): Promise<{ spendRecords: number; outcomes: number; attempts: number; runs: number }>;
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

/**
 * The engine's lease port over a held loop lease: the one check every shared write of the tick goes through.
 *
 * @example
 * ```ts
 * const held = await stores.acquireLoopLease(plan);
 * createLoopRuntime(project, plan, { ...options, lease: tickLeasePort(held) });
 * ```
 */
export function tickLeasePort(held: Pick<HeldLoopLease, 'fence' | 'stillHeld'>): TickLease {
  return { specificationVersion: 'tick-lease-v1', fence: held.fence, stillHeld: () => held.stillHeld() };
}
