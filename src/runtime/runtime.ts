/**
 * The one wiring path. Every entry point — each CLI command, the library,
 * and anything later (a server) — opens a `Runtime` for a repository and
 * makes one call on it. The runtime builds every adapter through
 * `create-runtime.ts` and `wiring.ts`, so redaction, leases, the gate and the
 * kill switch apply the same way whoever asks.
 *
 * @example
 * ```ts
 * const opened = await openRuntime({ cwd: '/repo', env: process.env, clock: systemClock });
 * if (!opened.ok) throw new Error(opened.issues.map(formatDiagnostic).join('\n'));
 * const summary = await opened.runtime.run('daily-triage', { dryRun: true });
 * ```
 */
import type { Diagnostic } from '../core/config/diagnostics.js';
import type { Level } from '../core/config/schemas.js';
import type { AgentBackend, Clock } from '../core/ports/index.js';
import type { LoadedProject } from '../project/load-project.js';
import type { ApproveResult, InboxItem, RejectResult } from './git-approval.js';
import type { DoctorReport } from './doctor.js';
import type { LoopStatusReport } from './loop-status.js';
import type { DueRunSummary, RunSummary } from './run-loops.js';

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
  /** Spend, pause state and last runs per configured loop. */
  status(): Promise<LoopStatusReport>;
  /** Per configured loop: the backend it will use and why, its CLI and version, its credentials variable, the sandbox. */
  doctor(): Promise<DoctorReport>;
}

/** Loads the repository's configuration and returns the runtime over it, or the configuration's issues. */
export async function openRuntime(options: OpenRuntimeOptions): Promise<{ ok: true; runtime: Runtime } | { ok: false; issues: Diagnostic[] }> {
  const { loadProject, resolvePlan } = await import('../project/load-project.js');
  const loaded = await loadProject(options.cwd);
  if (!loaded.ok) return { ok: false, issues: loaded.issues };
  const project = loaded.project;
  const tickOptions = (request: RunRequest) => ({
    dryRun: Boolean(request.dryRun),
    env: options.env,
    clock: options.clock,
    allowUnsandboxed: Boolean(request.allowUnsandboxed),
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.backend ? { backend: options.backend } : {}),
  });
  const backendOverride = (request: RunRequest) => (request.dryRun ? 'mock' : request.backendName);
  const decisions = { clock: options.clock, env: options.env };

  const runtime: Runtime = {
    project,
    async run(id, request = {}) {
      const backend = backendOverride(request);
      const resolved = await resolvePlan(project, id, { ...(request.level ? { level: request.level } : {}), ...(backend ? { backend } : {}) });
      if (!resolved.ok) return resolved;
      const { tickUnderLease } = await import('./run-loops.js');
      const summary = await tickUnderLease(project, resolved.plan, request.ticks ?? 1, tickOptions(request));
      if (request.dryRun && request.backendName && request.backendName !== 'mock') {
        summary.notes.unshift(`dry-run: rehearsed with the mock backend; --backend ${request.backendName} applies to runs without --dry-run.`);
      }
      return { ok: true, value: summary, warnings: resolved.warnings };
    },
    async runDue(request = {}) {
      const backend = backendOverride(request);
      const { tickDueLoops } = await import('./run-loops.js');
      const due = await tickDueLoops(
        project,
        { ...(request.id ? { id: request.id } : {}), ...(request.level ? { level: request.level } : {}), ...(backend ? { backendName: backend } : {}) },
        tickOptions(request),
      );
      return due.ok ? { ok: true, value: due.summary, warnings: due.issues } : due;
    },
    async inbox() {
      const { listInbox } = await import('./git-approval.js');
      return listInbox(project.root, options.clock.now());
    },
    async approve(idOrItemKey, approval = {}) {
      const { approveChange } = await import('./git-approval.js');
      return approveChange(project, idOrItemKey, { ...decisions, yes: Boolean(approval.yes) });
    },
    async reject(idOrItemKey) {
      const { rejectChange } = await import('./git-approval.js');
      return rejectChange(project, idOrItemKey, decisions);
    },
    async status() {
      const { loopStatus } = await import('./loop-status.js');
      return loopStatus(project, options);
    },
    async doctor() {
      const { runDoctor } = await import('./doctor.js');
      return runDoctor(project, { env: options.env });
    },
  };
  return { ok: true, runtime };
}
