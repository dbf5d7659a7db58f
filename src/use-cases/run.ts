/**
 * Ticking a loop the way every entry point does it: `run <id>` now, and each due loop of `run --due` (run-due.ts),
 * each tick under the loop's lease, through the one composition root, with everything reported redacted.
 */
import { relative } from 'node:path';
import type { Level } from '../core/config/schemas.js';
import type { TickResult } from '../core/engine/tick-result.js';
import { runLogOutcome } from '../core/engine/tick-result.js';
import { ExitCode, exitCodeForHalt, mostSeriousExitCode } from '../core/errors.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { DueDecision } from '../core/schedule/decide-due.js';
import type { AgentBackend, Clock } from '../core/ports/index.js';
import type { LoadedProject } from '../project/load-project.js';
import { redactorFor, redactStrings } from '../composition/wiring.js';
import { refuseUnmetPreconditions, refusingWithoutSandbox } from './refused-tick.js';
import { tickLeasePort, type ProjectStores } from '../composition/stores/project-stores.js';
import type { EventItem } from '../adapters/discovery/event-discovery.js';
import { phaseLabel, retryLabel } from './progress-labels.js';
// Static: every tick needs them, and this module is itself loaded by import() (runtime.ts), so an import() here only
// added esbuild facade files (create-runtime's re-imported ~40 chunks) for the ESM loader to read. `run --due` lives
// in run-due.ts and loads this module only when a loop is due.
import { openTickSession } from '../composition/tick-session.js';
import { createLoopRuntime } from '../composition/create-runtime.js';
import { priceBasisOf, priceSource, tickCost, totalCost } from './outcomes/tick-cost.js';

/** What a rehearsal's dollars are said to be priced by (runtime.ts marks a mock-for-agent run with it). */
export { REHEARSAL_PRICE_SOURCE } from './outcomes/tick-cost.js';

export interface RunSummary {
  pattern: { id: string; name: string };
  level: Level;
  backend: string;
  /** Why this backend ran: configured, chosen from the loop's agents (and which binary), the dry-run mock, or injected. */
  backendReason: string;
  dryRun: boolean;
  /** Each tick with its cost in USD (null: a price nobody knows; 0 for a rehearsal), priced by `tickCost`. */
  ticks: Array<TickResult & { costUsd?: number | null }>;
  /** The ticks' total in USD, null when any tick's price is unknown. */
  costUsd?: number | null;
  /** Where the dollars come from, said once (tick-cost.ts `priceSource`). */
  priceSource?: string;
  budget: { spentToday: number; dailyTokenCap: number };
  /** True for a rehearsal: a dry run, or `--backend mock` for a loop whose agent is another (its tokens count against no cap). */
  rehearsal?: boolean;
  /** What the runtime changed about the plan or its isolation for this run (dry-run, sandbox opt-out, fallbacks). */
  notes: string[];
  /** What the start of this run recovered from an earlier process killed mid-tick (also in `.loop-runtime/recovery.jsonl`). */
  recovery?: import('../adapters/recovery/tick-start-recovery.js').RecoveryRecord;
  exitCode: number;
}

export type DueAction = 'ticked' | 'not-due' | 'lease-held' | 'error';

export interface DueLoopReport {
  id: string;
  due: boolean;
  reason: DueDecision['reason'];
  detail: string;
  intervalMs: number;
  nextAt: string;
  action: DueAction;
  exitCode: number;
  /** The tick, when one ran, priced like `run <id>`'s (tick-cost.ts): `costUsd` null when its price is unknown. */
  tick?: TickResult & { costUsd?: number | null };
  /** What priced the tick (tick-cost.ts `priceSource`). */
  priceSource?: string;
  /** The tick ran on the mock (a rehearsal): its tokens never count. */
  rehearsal?: boolean;
  /** Why no tick ran although the loop was due (lease held, error). */
  message?: string;
}

export interface DueRunSummary {
  mode: 'due';
  at: string;
  dryRun: boolean;
  decisions: DueLoopReport[];
  /** The ticked loops' dollars together (null: a price nobody knows); absent when nothing ticked. */
  costUsd?: number | null;
  exitCode: number;
}

/** How ticks run: shared by `run <id>`, `run --due` and the library. */
export interface TickOptions {
  dryRun: boolean;
  env: Record<string, string | undefined>;
  clock: Clock;
  allowUnsandboxed?: boolean;
  /** Progress lines (already redacted when they reach it). */
  progress?: (line: string) => void;
  /** Injected backend (tests); otherwise the plan's backend is resolved. */
  backend?: AgentBackend;
  /** `--record <file>`: save the tick's port history (redacted) here for `replay`. One tick only. */
  record?: string;
  /** The operator's stop (Ctrl-C), handed to the engine. */
  signal?: AbortSignal;
  /** The project's shared stores (files or the fleet's Postgres); files when absent. */
  stores?: ProjectStores;
  /** An event-triggered tick's work item (`run <id> --event-item`). */
  eventItem?: EventItem;
}

/** 1 for a failed tick, 5 for a halt a human must clear (backend stopped, circuit open), 2 for budget/L0/kill switch. */
export function exitCodeForTicks(ticks: readonly TickResult[]): number {
  return mostSeriousExitCode(
    ticks.map((tick) => (tick.kind === 'failed' ? ExitCode.tickFailed : tick.kind === 'halted' ? exitCodeForHalt(tick.reason) : tick.kind === 'paused' ? ExitCode.halted : ExitCode.ok)),
  );
}


/**
 * Runs `count` ticks of one loop under its lease (no lease for a dry run,
 * which writes nothing). Throws `LEASE_HELD` when another tick holds it,
 * before any side effect.
 */
export async function tickUnderLease(project: LoadedProject, writtenPlan: ExecutionPlan, count: number, options: TickOptions): Promise<RunSummary> {
  // The agent is chosen before the lease: a loop that cannot run (no agent installed, exit 3) leaves no lease history.
  const { plan, backendReason } = await decideBackend(project, writtenPlan, options);
  const stores = options.stores ?? (await import('../composition/stores/file-stores.js')).fileStores(project, options.clock);
  const lease = options.dryRun ? null : await stores.acquireLoopLease(plan);
  let ticks: TickResult[] = [];
  // Progress lines go straight to the terminal, so they are redacted here; the summary (--json) on its way out of
  // the Runtime. Tick results carry command output, reasons and agent summaries.
  const redact = redactorFor(options.env, project.root);
  const progress = (line: string) => options.progress?.(redact(line));
  try {
    // Cheap preconditions before any model call: a tick that cannot finish spends nothing.
    await refuseUnmetPreconditions(project, plan, { ...options, stores });
    const notes: string[] = [];
    if (lease?.recovered) {
      const line = `recovery: took over the loop's lease: ${lease.recovered.reason}`;
      notes.push(line);
      progress(line);
    }
    // What surrounds a tick (recovery, stranded deliveries, telemetry, the event journal, outcome tracking): shared
    // with the fleet worker's tick, so the two cannot drift apart.
    const session = await openTickSession({
      project,
      plan,
      clock: options.clock,
      env: options.env,
      dryRun: options.dryRun,
      deliveryLedger: stores.deliveryLedger(),
      outcomes: stores.outcomes(),
      note: (line, shown) => {
        notes.push(line);
        if (shown) progress(line);
      },
      onEvent: (event) => {
        if (event.type === 'phase-start') progress(phaseLabel(event.phase, event.detail));
        else if (event.type === 'phase-end') progress(`  ${event.phase}: ${event.note ?? ''}`);
        else if (event.type === 'tick-start') progress(`${plan.pattern.id}: tick ${event.tickId} started`);
        else if (event.type === 'agent-retry') progress(retryLabel(event));
      },
    });
    const recovery = session.recovery;
    const runtime = await refusingWithoutSandbox(project, plan, { ...options, stores }, () =>
      createLoopRuntime(project, plan, {
        dryRun: options.dryRun,
        env: options.env,
        clock: options.clock,
        allowUnsandboxed: options.allowUnsandboxed ?? false,
        ...(options.backend ? { backend: options.backend } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.eventItem ? { eventItem: options.eventItem } : {}),
        stores,
        // Every shared write of the tick checks the lease is still ours: a stalled run that was taken over stops.
        ...(lease ? { lease: tickLeasePort(lease) } : {}),
        log: (line) => {
          notes.push(line);
          progress(line);
        },
        observer: session.observer,
      }),
    );
    const recording = options.record ? (await import('../replay/record-tick.js')).startRecording(runtime) : null;
    try {
      ticks = await (recording?.engine ?? runtime.engine).ticks(count, (tick) => session.afterTick(tick));
    } finally {
      await runtime.close();
    }
    if (recording && options.record && ticks[0]) {
      await recording.save(options.record, ticks[0], redact);
      const shown = relative(project.root, options.record).startsWith('..') ? options.record : relative(project.root, options.record);
      notes.push(`recorded: ${shown} (replay it with \`loop-runtime replay ${shown}\`)`);
    }
    // The fleet's run history (a no-op for files, whose run log the state writer already appended to).
    if (!options.dryRun) await stores.recordTicks(ticks.map((tick) => redactStrings(tick, redact)), runtime.ports.backend.name);
    // The recovered ticks' note, the delivered changes for outcome tracking, the tick-result lines `serve` reads.
    await session.finish(ticks);
    const last = ticks[ticks.length - 1]!;
    const priced = await priceTicks(stores, plan, runtime.ports.backend.name, ticks, options.dryRun);
    const summary: RunSummary = {
      pattern: { id: plan.pattern.id, name: plan.pattern.name },
      level: plan.level,
      backend: runtime.ports.backend.name,
      backendReason,
      dryRun: options.dryRun,
      ...priced,
      budget: last.budget,
      notes: [...runtime.notes, ...notes],
      ...(recovery ? { recovery } : {}),
      exitCode: exitCodeForTicks(ticks),
    };
    // Redacted on its way out of the Runtime (runtime.ts `withRedaction`), like every answer.
    return summary;
  } finally {
    const last = ticks[ticks.length - 1];
    await lease?.release(last ? { outcome: runLogOutcome(last), tickKind: last.kind, tickId: last.tickId, startedAt: last.startedAt } : { outcome: 'failed', tickKind: 'error' });
  }
}

/**
 * The ticks priced from the store's spend they were just settled in — the file journal or the Postgres rows, the same
 * pricing (a dry run writes none: it is a rehearsal, $0).
 */
async function priceTicks(stores: ProjectStores, plan: ExecutionPlan, backend: string, ticks: readonly TickResult[], dryRun: boolean) {
  // The mock's tokens are priced at nothing, whether it rehearses for another agent or is the loop's own backend.
  const rehearsal = dryRun || backend === 'mock';
  // An unreadable spend prices nothing: every tick that spent tokens is then unknown (null), never a guess.
  const spend = rehearsal ? new Map() : await stores.spendByTick({ tickIds: ticks.map((tick) => tick.tickId) }).catch(() => new Map());
  const priced = ticks.map((tick) => ({ ...tick, costUsd: tickCost({ ...tick, rehearsal }, spend) }));
  const costs = priced.map((tick) => tick.costUsd);
  return { ticks: priced, costUsd: totalCost(costs), priceSource: priceSource({ ...priceBasisOf(plan.backend, backend), rehearsal: dryRun }, costs) };
}

async function decideBackend(project: LoadedProject, plan: ExecutionPlan, options: TickOptions): Promise<{ plan: ExecutionPlan; backendReason: string }> {
  if (options.backend) return { plan, backendReason: 'injected by the caller' };
  if (options.dryRun) return { plan, backendReason: 'dry-run: always the mock' };
  const { withChosenBackend } = await import('../composition/backend-choice.js');
  const chosen = withChosenBackend(plan, project.root, options.env);
  return { plan: chosen.plan, backendReason: chosen.choice.reason };
}
