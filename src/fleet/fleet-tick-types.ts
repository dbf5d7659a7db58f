/**
 * The shapes a fleet worker is built from: a tick's workflow input, what a
 * worker wires for it, and the worker's options.
 */
import type { EnginePorts } from '../core/engine/engine-ports.js';
import type { TickResult } from '../core/engine/tick-result.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { BudgetLedger, Clock, EngineObserver } from '../core/ports/index.js';
import type { PostgresRunHistory } from '../adapters/postgres/index.js';
import type { StepRunner } from './durable-ports.js';
import type { FleetLoopLease, SkippedOverlapTick } from './tick-lease.js';

/** A tick to run: the workflow's input, recorded by the engine on enqueue. */
export interface FleetTickInput {
  scope: string;
  patternId: string;
  /** The schedule slot (e.g. an ISO time): one tick per loop and slot. */
  slot: string;
  startedAt: number;
}

/** What a worker builds for one tick from its own configuration. */
export interface WiredTick {
  plan: ExecutionPlan;
  ports: EnginePorts;
  /** The ledger under `ports.budget` (the fleet store's). */
  budgetLedger: BudgetLedger;
  /** The real clock each durable step reads when it finishes. */
  clock: Clock;
  history?: PostgresRunHistory;
  /**
   * Called inside the tick's workflow when the tick escalated: starts the
   * durable wait for a human's decision (`awaitApproval`), off the tick queue.
   */
  onEscalated?: (result: Extract<TickResult, { kind: 'escalated' }>) => Promise<unknown>;
  /** The loop's lease (the one `run` takes): held for the whole tick; a tick that finds it held ends `skipped-overlap`. */
  loopLease?: FleetLoopLease;
  /**
   * What surrounds the tick, as for `run` (`openTickSession`: recovery, stranded deliveries, telemetry, the event
   * journal, outcome tracking): opened inside the workflow once the lease is held, its observer handed to the engine,
   * finished after the run history has the tick.
   */
  surround?: (context: TickSurroundContext) => Promise<TickSurround>;
}

/** What a tick's surroundings are told: its durable steps, its id, and whether this run resumes a dead worker's. */
export interface TickSurroundContext {
  step: StepRunner;
  tickId: string;
  resumed: boolean;
}

export interface TickSurround {
  observer: EngineObserver;
  finish(ticks: readonly TickResult[]): Promise<unknown>;
}

/** What a tick workflow returns: the tick, or why it did not run. */
export type FleetTickResult = TickResult | SkippedOverlapTick;

export type TickWiring = (input: FleetTickInput) => Promise<WiredTick>;

export interface FleetWorkerOptions {
  databaseUrl: string;
  /** Unique per worker process (host name + pid is a good default). */
  executorId: string;
  wire: TickWiring;
  /** How often to look for dead workers' ticks (default 5 s). */
  recoveryIntervalMs?: number;
  /** At most this many ticks at once in this process (default: no limit); give every worker of a fleet the same. */
  ticksPerWorker?: number;
  /** All workers of a fleet must share it (default `loop-runtime`). */
  applicationVersion?: string;
  logLevel?: string;
  /** Called after every recovery sweep with the dead executors whose ticks it handed back. */
  onSweep?: (recovered: string[]) => void;
}
