/**
 * What an open `Runtime` offers every entry point (runtime.ts builds it):
 * the requests it takes and the results it returns, as types only.
 */
import type { SpendByTick } from '../use-cases/outcomes/tick-cost.js';
import type { Diagnostic } from '../core/config/diagnostics.js';
import type { Level } from '../core/config/schemas.js';
import type { AgentBackend, Clock } from '../core/ports/index.js';
import type { LoadedProject } from '../project/load-project.js';
import type { ApproveResult, InboxItem, RejectResult } from '../use-cases/approval.js';
import type { DiscardResult } from '../use-cases/discard-change.js';
import type { DoctorReport } from '../use-cases/doctor.js';
import type { RetryResult } from '../use-cases/deliver.js';
import type { LoopStatusReport } from '../use-cases/status.js';
import type { ResetMockResult } from '../use-cases/reset-mock.js';
import type { DueRunSummary, RunSummary } from '../use-cases/run.js';
import type { MetricsResult, OutcomesSyncResult, PromoteResult } from '../use-cases/outcomes/outcomes-facade.js';
import type { ConsoleLoop, HistoryFilter, SpendReport } from '../use-cases/console-queries.js';
import type { RunLogEntry } from '../core/state/run-log.js';
import type { TickResult } from '../core/engine/tick-result.js';
import type { GateDecision } from '../core/gate/check-gate.js';
import type { PauseSource } from '../adapters/kill-switch/kill-switch.js';
import type { TickEventLine } from '../adapters/tick-events/tick-events.js';
import type { EventTail } from '../adapters/tick-events/event-tail.js';
import type { ReplayReport } from '../use-cases/replay.js';
import type { RecordingTestSummary } from '../use-cases/test-recordings.js';
import type { ResumeLoopResult } from '../use-cases/resume.js';
import type { RunQuery, RunRecord } from '../use-cases/run-records.js';
import type { EventItem } from '../adapters/discovery/event-discovery.js';

export interface OpenRuntimeOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  clock: Clock;
  /** Progress lines for long work (redacted before they reach it). */
  progress?: (line: string) => void;
  /** Injected backend for every tick (tests, embedding); otherwise each plan's backend is resolved. */
  backend?: AgentBackend;
}

export interface RunRequest {
  dryRun?: boolean;
  level?: Level;
  /** Backend override by name (`--backend`); a dry run always uses the mock. */
  backendName?: string;
  ticks?: number;
  allowUnsandboxed?: boolean;
  /** Save the tick's port history (redacted) to this file for `replay` (`run <id> --record`). One tick only. */
  record?: string;
  /** The operator's stop (Ctrl-C): the running call is stopped and settled, the lease released, the tick ends paused. */
  signal?: AbortSignal;
  /** The event of an event-triggered tick as its one work item (`run <id> --event-item <file>`, see src/ci/github-event.ts). */
  eventItem?: EventItem;
}

export type Planned<T> = { ok: true; value: T; warnings: Diagnostic[] } | { ok: false; issues: Diagnostic[] };

export interface Runtime {
  readonly project: LoadedProject;
  /** Ticks one loop now, under its lease (`run <id>`). Throws LEASE_HELD when a tick already runs. */
  run(id: string, request?: RunRequest): Promise<Planned<RunSummary>>;
  /** Ticks the loops whose cadence says they are due (`run --due`), all or just `id`. */
  runDue(request?: RunRequest & { id?: string }): Promise<Planned<DueRunSummary>>;
  /** Escalated changes waiting for a human, oldest first. */
  inbox(): Promise<InboxItem[]>;
  /** Applies an escalated change after re-running the gate on its current diff. */
  approve(idOrItemKey: string, options?: { yes?: boolean }): Promise<ApproveResult>;
  /** Discards an escalated change. */
  reject(idOrItemKey: string): Promise<RejectResult>;
  /** Drops any kept change (escalated, a verified local proposal, a kept worktree): worktree and branch, recorded `discarded`. */
  discard(idOrKey: string): Promise<DiscardResult>;
  /** Retries the delivery of a verified commit whose delivery failed (exactly that commit; no agent run). */
  deliver(idOrItemKey: string): Promise<RetryResult>;
  /** Spend, pause state and last runs per configured loop. */
  status(): Promise<LoopStatusReport>;
  /** Follows every delivered change (git ancestry, reverts, pull requests) and applies each loop's `autonomy:` policy. No model call. */
  outcomesSync(id?: string): Promise<Planned<OutcomesSyncResult>>;
  /** Acceptance, reverts, escalations, cost per merged change… per loop since `since` (epoch ms), with a promotion recommendation. */
  metrics(id: string | undefined, request: { since: number; audit?: boolean }): Promise<Planned<MetricsResult>>;
  /** Tokens and dollars of these ticks as the project's store (files or Postgres) journalled them, for the one pricing. */
  spendOfTicks(tickIds: readonly string[]): Promise<SpendByTick>;
  /** Raises a loop one level in its LOOP.md — only with `yes`; otherwise returns the evidence to confirm. */
  promote(id: string, request?: { yes?: boolean }): Promise<Planned<PromoteResult>>;
  /** Removes what mock runs of one loop wrote (`reset <id> --mock`), under its lease. */
  resetMock(id: string): Promise<Planned<ResetMockResult>>;
  /** Every configured loop with cadence, next due time, lease holder, last outcome, spend and pause sources. */
  loops(): Promise<ConsoleLoop[]>;
  /** The run log, newest first, filtered by loop, outcome and UTC day range. */
  history(filter?: HistoryFilter): Promise<RunLogEntry[]>;
  /** Past ticks from the project's store (the fleet's run history, or the run log), newest first, in one shape. */
  runs(query?: RunQuery): Promise<RunRecord[]>;
  /** One tick's detail: its full result while the event journal still holds it, and its run-log line. */
  tick(tickId: string): Promise<{ tickId: string; entry: RunLogEntry | null; result: TickResult | null; events: unknown[] }>;
  /** Today's spend per loop against its cap and per UTC day over the last `days` days. */
  spend(days?: number): Promise<SpendReport>;
  /** An escalated change's current diff and the gate's decision on it now. */
  diff(idOrItemKey: string): Promise<{ id: string; paths: string[]; patch: string; gate: GateDecision }>;
  /**
   * Sets the kill switch through the project's store (every process sharing it stops): every loop or one,
   * recording who (`by`, default `user@host`) and why.
   */
  pause(scope?: { loop?: string; by?: string; reason?: string }): Promise<PauseSource[]>;
  /** Clears what `pause` wrote (and, for one loop, its halt that needs a human); returns the forms still set (env, state lines), which only humans clear. */
  resume(scope?: { loop?: string; by?: string }): Promise<PauseSource[]>;
  /**
   * `resume <id>`: clears the loop's halt that needs a human (backend stopped, budget overrun) and its own pause
   * file, recording who (`by`, default the login or CI actor at this host) and when in its run log.
   */
  resumeLoop(id: string, request?: { by?: string }): Promise<Planned<ResumeLoopResult>>;
  /** The last `limit` engine events in the event journal (no tick results), oldest first, redacted. */
  recentEvents(limit?: number): Promise<TickEventLine[]>;
  /** Follows the event journal: engine events of ticks run by any process on this machine, redacted. */
  events(listener: (line: TickEventLine) => void): Promise<EventTail>;
  /** Re-runs a recorded tick (`run --record`) offline under the current configuration and reports what now differs. */
  replay(file: string, request?: { level?: Level; recordedPlan?: boolean }): Promise<Planned<ReplayReport>>;
  /** Replays every `loops/<id>/recordings/*.json` (or one loop's) and reports which now differ. */
  testRecordings(request?: { id?: string; level?: Level }): Promise<RecordingTestSummary>;
  /** Per configured loop: the backend it will use and why, its CLI and version, its credentials variable, the sandbox. */
  doctor(): Promise<DoctorReport>;
}
