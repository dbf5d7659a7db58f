/**
 * What surrounds a tick, for every entry point that runs one — `run <id>`,
 * `run --due`, the library (`tickUnderLease`) and a fleet worker's tick
 * workflow — so the two paths cannot drift apart:
 *
 * - before (under the loop's lease, before any model call): recovery of
 *   what a killed process left behind, then this loop's stranded deliveries
 *   retried (no model call);
 * - during: the observer — OpenTelemetry spans and counters, the event
 *   journal `serve` tails (redacted), and the caller's own progress lines;
 * - after: the recovered ticks' state-file note, every delivered change
 *   recorded for outcome tracking, and each tick's `tick-result` line.
 *
 * A rehearsal (dry run) gets telemetry and progress only: it writes nothing.
 *
 * Repeating a session is safe, which a fleet tick needs (a durable workflow
 * replayed on another worker after a kill -9): recovery is idempotent and
 * skips the resumed tick's own commit; the stranded retry is a durable step
 * (and deliveries are deduplicated by the delivery ledger anyway); a tick's
 * proposal is recorded once per tick id; and a resumed tick does not write
 * again the journal lines it already wrote (nor count their telemetry again).
 */
import { afterRehearsal, beforeTickWrites } from '../adapters/rehearsal/rehearsal-preimages.js';
import { REHEARSAL_BACKEND } from '../core/outcomes/rehearsal-backend.js';
import type { TickResult } from '../core/engine/tick-result.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { Clock, EngineEvent, EngineObserver } from '../core/ports/index.js';
import type { DeliveryLedgerStore } from '../adapters/delivery/delivery-flow.js';
import type { OutcomeStore } from '../adapters/outcomes/outcome-store.js';
import type { LoadedProject } from '../project/load-project.js';
import type { RecoveryRecord } from '../adapters/recovery/recovery-log.js';
import { openTelemetryRegistered } from '../adapters/telemetry/telemetry-registered.js';
import { appendTickEvent, readTickEvents, type TickEventLine } from '../adapters/tick-events/tick-events.js';
import { prepareRedaction, redactorFor, redactStrings } from './wiring.js';

/** Runs `body` once per tick however often the tick runs (`DBOS.runStep` in a fleet worker); a plain call otherwise. */
export type SessionStep = <T>(name: string, body: () => Promise<T>) => Promise<T>;

export interface TickSessionOptions {
  project: LoadedProject;
  plan: ExecutionPlan;
  clock: Clock;
  env: Record<string, string | undefined>;
  /** A rehearsal: telemetry and progress only; nothing is recovered, retried, journalled or recorded. */
  dryRun: boolean;
  /** The loop's shared delivery ledger (the fleet store's); the file beside the repository when absent. */
  deliveryLedger?: DeliveryLedgerStore | undefined;
  /** The project's shared outcome lines (`ProjectStores.outcomes()`): each delivered change is recorded there. */
  outcomes: OutcomeStore;
  /** A line for the run's notes; `shown`: also a progress line. Lines are not yet redacted. */
  note?: (line: string, shown: boolean) => void;
  /** Every engine event, after telemetry and before the journal (the caller's progress lines). */
  onEvent?: EngineObserver;
  /** Durable steps (fleet); a plain call when absent. */
  step?: SessionStep;
  /**
   * The tick's id when known before it runs (a fleet tick: derived from its workflow id), and whether it is being
   * resumed after its worker died.
   */
  resume?: { tickId: string; resumed: boolean };
}

export interface TickSession {
  /** What tick-start recovery found (also in `.loop-runtime/recovery.jsonl`); null when nothing. */
  readonly recovery: RecoveryRecord | null;
  /** Hand to the engine (`createLoopRuntime({ observer })`, or `ports.observer`). */
  readonly observer: EngineObserver;
  /** Hand to `engine.ticks(count, afterTick)`: records a delivered change before the next tick triages. */
  afterTick(tick: TickResult): Promise<void>;
  /** After the ticks (and after the run history has them): returns how many delivered changes were newly recorded. */
  finish(ticks: readonly TickResult[]): Promise<{ proposals: number }>;
}

const plainStep: SessionStep = (_name, body) => body();

/**
 * Which event of which tick a journal line is: its position among the tick's events (the engine is deterministic, so a
 * replay emits the recorded steps' events in the same order), and a tick has one result. Not the content or the time:
 * a worker that resumes a tick re-creates its worktree and commit on its own disk, so notes and the result may name
 * another commit, and events between two steps share the step clock's time.
 */
class JournalPositions {
  private readonly counts = new Map<string, number>();
  key(line: TickEventLine): string {
    if (line.type === 'tick-result') return `${line.tickId}#result`;
    const position = this.counts.get(line.tickId) ?? 0;
    this.counts.set(line.tickId, position + 1);
    return `${line.tickId}#${position}`;
  }
}

/**
 * Runs the "before" part and returns the observer and the "after" part.
 *
 * @example
 * ```ts
 * const session = await openTickSession({ project, plan, clock, env, dryRun: false, note: (line) => notes.push(line) });
 * const runtime = await createLoopRuntime(project, plan, { dryRun: false, env, clock, observer: session.observer });
 * const ticks = await runtime.engine.ticks(1);
 * await session.finish(ticks);
 * ```
 */
export async function openTickSession(options: TickSessionOptions): Promise<TickSession> {
  const { project, plan, clock, env, dryRun } = options;
  // Fleet workers open no Runtime: the session reads the repository's secret files itself (a dry run writes nothing).
  if (!dryRun) await prepareRedaction(project.root, project.settings?.worktreesDir ?? null);
  const redact = redactorFor(env, project.root);
  const note = options.note ?? (() => undefined);
  const step = options.step ?? plainStep;
  let recovery: RecoveryRecord | null = null;
  // The methodology's files this tick may write; a rehearsal's pre-images of them are kept for `reset --mock`.
  const methodologyFiles = [plan.files.state, plan.files.runLog, plan.files.ledger];
  const rehearsal = plan.backend.name === REHEARSAL_BACKEND;
  if (!dryRun) await beforeTickWrites(project.root, methodologyFiles, rehearsal);
  if (!dryRun) {
    // Under the lease, before any model call: what a process killed mid-tick left behind (on this machine's disk, so
    // not a durable step: a worker that resumes a tick recovers its own disk).
    const { describeRecovery, recoverAtTickStart } = await import('../adapters/recovery/tick-start-recovery.js');
    // Best effort: what recovery could not clean up now is retried by the next tick, and never stops this one.
    recovery = await recoverAtTickStart(project.root, plan, {
      now: clock.now(),
      redact,
      worktreesDir: project.settings?.worktreesDir ?? null,
      ...(options.resume ? { exceptTickId: options.resume.tickId } : {}),
    }).catch((error: unknown) => {
      note(`recovery: not completed (${error instanceof Error ? error.message : String(error)}); the next tick tries again`, false);
      return null;
    });
    for (const line of recovery ? describeRecovery(recovery) : []) note(line, true);
    // Then, cheaply (no model call): verified commits of this loop whose delivery failed are delivered again.
    const { retryStrandedForLoop } = await import('../use-cases/deliver.js');
    const retried = await step('session.retryStranded', () => retryStrandedForLoop(project, plan, { clock, env, deliveryLedger: options.deliveryLedger, outcomes: options.outcomes }));
    for (const line of retried) note(line, true);
  }
  // A resumed tick replays the events of its recorded steps: the lines the dead worker already wrote to this disk's
  // journal are not written again (`serve` would show its phases twice), nor counted again by telemetry.
  const written = new Set<string>();
  if (!dryRun && options.resume?.resumed) {
    const tickId = options.resume.tickId;
    const found = new JournalPositions();
    for (const line of await readTickEvents(project.root)) if (line.tickId === tickId) written.add(found.key(line));
  }
  const positions = new JournalPositions();
  /** Appends the line unless this disk's journal has it already; true when it was there (a replayed event). */
  const journal = (line: TickEventLine): boolean => {
    const key = positions.key(line);
    if (written.has(key)) return true;
    written.add(key);
    appendTickEvent(project.root, line);
    return false;
  };
  // Spans and counters only when an OpenTelemetry SDK is registered; otherwise the API is not even loaded.
  const telemetry = openTelemetryRegistered() ? (await import('../adapters/telemetry/telemetry.js')).telemetryObserver(plan) : () => undefined;
  const observer: EngineObserver = (event: EngineEvent) => {
    // Real ticks publish their phases for `serve` (a dry run writes nothing).
    const line = dryRun ? null : redactStrings({ ...event, v: 1 as const, loop: plan.pattern.id, pid: process.pid }, redact);
    const replayed = line ? journal(line) : false;
    telemetry(event, replayed);
    options.onEvent?.(event);
  };
  // Every delivered change is followed from here on (outcomes sync, metrics, autonomy); once per tick id. Recorded
  // after each tick, not after the run: the one-open-proposal rule of the next tick of `run --ticks N` reads it.
  let proposals = 0;
  const recordDelivered = async (ticks: readonly TickResult[]) => {
    if (dryRun) return;
    const { recordProposals } = await import('../use-cases/outcomes/record-proposals.js');
    proposals += await recordProposals(project.root, plan, ticks, options.outcomes).catch((error: unknown) => {
      note(`outcomes: the delivered change was not recorded for outcome tracking: ${error instanceof Error ? error.message : String(error)}`, false);
      return 0;
    });
  };
  return {
    recovery,
    observer,
    afterTick: (tick) => recordDelivered([tick]),
    async finish(ticks) {
      if (dryRun || ticks.length === 0) return { proposals: 0 };
      if (rehearsal) await afterRehearsal(project.root, methodologyFiles);
      if (recovery?.recoveredTicks.length) {
        // The tick just cleared notes older than its start, the recovery's among them: the note stands for this run.
        const { noteRecoveredTicks } = await import('../adapters/recovery/unrecorded-commits.js');
        await noteRecoveredTicks(project.root, plan, recovery.recoveredTicks, { now: clock.now(), redact });
      }
      // Ticks whose caller did not call afterTick (a resumed fleet tick) are recorded here; a tick id is recorded once.
      await recordDelivered(ticks);
      for (const tick of ticks) journal({ v: 1, type: 'tick-result', loop: plan.pattern.id, pid: process.pid, tickId: tick.tickId, at: tick.finishedAt, result: redactStrings(tick, redact) });
      // Escalations, halts, circuit open, failed delivery: told to a human, after the ticks are recorded; never fails them.
      const notify = project.settings?.notify;
      if (notify) {
        const [{ notifyTicks }, { fileHaltMemory }] = await Promise.all([import('../adapters/notify/notify-ticks.js'), import('../adapters/notify/halt-memory.js')]);
        // A halt that persists (a cap refusing tick after tick, a halt awaiting resume) is told once.
        await notifyTicks(ticks.map((tick) => redactStrings(tick, redact)), notify, { env, note, memory: fileHaltMemory(project.root) });
      }
      return { proposals };
    },
  };
}
