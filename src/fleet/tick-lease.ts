/**
 * A fleet tick holds its loop's lease — the same Postgres row a manual
 * `run` (or cron's `run --due`) takes — so a tick of a loop never overlaps
 * one started by hand, whichever came first.
 *
 * - Taking the lease is a durable step, its token the workflow id: a tick
 *   resumed on another worker replays "taken" and comes back for its own
 *   lease (a row with its token is taken again whatever its age).
 * - Held by someone else (a manual run) when the tick starts: the tick ends
 *   `skipped-overlap` before any model call. The run holding the lease is
 *   this slot's tick; the slot's workflow is done, so the poller's later
 *   enqueues of it change nothing, and the loop is due again at its next slot
 *   by its cadence and the run history.
 * - Fenced: every take (a resumed tick's too) draws a new fencing number, and
 *   the tick's engine checks the row still carries it before every shared
 *   write (`ports.lease`). A worker that stalled past the stale time while
 *   another took the loop — or whose tick was resumed elsewhere — ends
 *   `halted` with reason `lease-lost` before its next write.
 * - Refreshed while the tick runs, released (deleted by token) when it ends,
 *   however it ends. Releasing is not a step: a tick replayed after its
 *   release takes the lease for as long as the replay lasts and lets it go.
 */
import { LoopRuntimeError } from '../core/errors.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { Clock } from '../core/ports/index.js';
import type { PostgresDatabase } from '../adapters/postgres/index.js';
import { postgresLoopLeases } from '../composition/stores/postgres-stores.js';
import { LEASE_MARGIN_MS } from '../adapters/leases/file-leases.js';
import type { StepRunner } from './durable-ports.js';

/** The answer of taking a loop lease: held (with its refresh and release) or held by someone else. */
export type LoopLeaseTake = { ok: true; fence: number; refresh(): Promise<boolean>; stillHeld(): Promise<boolean>; release(): Promise<void> } | { ok: false; holder: string; tickId: string };

/** What a worker's wiring gives a tick to hold its loop's lease with. */
export interface FleetLoopLease {
  /** Takes the lease with `token`; a lease already carrying `token` is taken again (the same tick, resumed). */
  take(token: string): Promise<LoopLeaseTake>;
  /** How often a held lease is refreshed (well within its stale time). */
  refreshEveryMs: number;
}

/** A tick that did not run: its loop's lease was held by another run when it started. */
export interface SkippedOverlapTick {
  kind: 'skipped-overlap';
  patternId: string;
  workflowId: string;
  /** Who held the lease (e.g. `host:pid` of a manual run) and its tick. */
  holder: string;
  holderTickId: string;
}

export type HeldTickLease = { ok: true; fence: number; stillHeld(): Promise<boolean>; release(): Promise<void> } | { ok: false; holder: string; tickId: string };

/**
 * @example
 * ```ts
 * const lease = await holdTickLease(wired.loopLease, workflowId, step);
 * if (!lease.ok) return { kind: 'skipped-overlap', ... };
 * try { await engine.tick(); } finally { await lease.release(); }
 * ```
 */
export async function holdTickLease(lease: FleetLoopLease, workflowId: string, step: StepRunner): Promise<HeldTickLease> {
  let takenNow: LoopLeaseTake | null = null;
  const answer = await step('loopLease.acquire', async () => {
    takenNow = await lease.take(workflowId);
    return takenNow.ok ? { ok: true as const } : { ok: false as const, holder: takenNow.holder, tickId: takenNow.tickId };
  });
  if (!answer.ok) return answer;
  // Replayed (the step ran in an earlier execution, maybe on a worker that died): take our own lease again.
  const held = (takenNow as LoopLeaseTake | null) ?? (await lease.take(workflowId));
  if (!held.ok) {
    throw new LoopRuntimeError('LEASE_HELD', `Tick ${workflowId} lost its loop lease while it waited to be resumed: ${held.holder} (tick ${held.tickId}) holds it now.`, {
      detail: { holder: held.holder, tickId: held.tickId },
      fix: 'nothing to do: the loop runs again at its next slot. Resume dead workers\' ticks sooner than the lease goes stale (the loop timeout plus its margin).',
    });
  }
  const timer = setInterval(() => void held.refresh().catch(() => false), lease.refreshEveryMs);
  timer.unref();
  return {
    ok: true,
    fence: held.fence,
    stillHeld: () => held.stillHeld(),
    async release() {
      clearInterval(timer);
      await held.release();
    },
  };
}

export interface PostgresTickLeaseOptions {
  database: PostgresDatabase;
  clock: Clock;
  scope: string;
  plan: ExecutionPlan;
  /** Shown to a manual run that finds the lease held, e.g. `fleet worker host-1234`. */
  holder: string;
  tickId: string;
}

/**
 * The loop lease `run` takes in the fleet store (same table, key and stale time), for a worker's tick.
 *
 * @example
 * ```ts
 * const loopLease = postgresTickLease({ database, clock, scope, plan, holder: `fleet worker ${executorId}`, tickId });
 * ```
 */
export function postgresTickLease(options: PostgresTickLeaseOptions): FleetLoopLease {
  const staleMs = options.plan.timeoutMs + LEASE_MARGIN_MS;
  const leases = postgresLoopLeases({ database: options.database, clock: options.clock, scope: options.scope, staleMs });
  return {
    refreshEveryMs: Math.max(1_000, Math.min(staleMs / 4, 30_000)),
    async take(token) {
      const taken = await leases.acquire({ patternId: options.plan.pattern.id, holder: options.holder, tickId: options.tickId, token });
      return taken.ok
        ? { ok: true, fence: taken.fence, refresh: taken.refresh, stillHeld: taken.stillHeld, release: taken.release }
        : { ok: false, holder: taken.holder, tickId: taken.tickId };
    },
  };
}
