/**
 * The ports a tick runs through. The engine imports no I/O: everything it
 * does to the world goes through one of these interfaces, and every adapter
 * (mock, git worktrees, bubblewrap, Claude Code, OpenAI, files on disk) plugs
 * in behind one of them.
 *
 * Conventions:
 * - Each port carries a `specificationVersion` tag so an adapter written for
 *   an older shape is refused instead of misbehaving.
 * - Optional capabilities are optional methods; the engine checks for them
 *   and throws `CapabilityUnsupportedError` when a plan needs a missing one.
 * - Expected failures are data (`{ ok: false, reason, message, detail }`),
 *   never raw library exceptions.
 */
import type { CommandSpec, ExecutionPlan } from '../plan/execution-plan.js';

// ---------------------------------------------------------------- time & ids

/** Injected time source. `now()` is epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** Injected id source; ids must be unique within a state directory. */
export interface IdGenerator {
  next(kind: 'tick' | 'item' | 'attempt'): string;
}

// ------------------------------------------------------------------- usage

/** Token and cost accounting, normalized across backends. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Cost in USD when the backend or a price table knows it. */
  costUsd: number | null;
}

export const ZERO_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: null,
}) as Usage;

/** Tokens that count against the daily cap: every token the model saw or produced. */
export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

export type Failure<Reason extends string = string> = {
  ok: false;
  reason: Reason;
  message: string;
  /** Whether trying again later may succeed (rate limit, network) or not (auth, quota). */
  retryable: boolean;
  /** Raw detail: exit code, signal, HTTP status, stderr tail. Redacted before it is written anywhere. */
  detail?: Record<string, unknown>;
};

// ------------------------------------------------------------------ backend

export type AgentRole = 'triage' | 'implement' | 'check';

/** A unit of work triage found: an issue, a failing CI run, an outdated dependency. */
export interface WorkItem {
  /** Stable key used for attempts, dedupe and item leases, e.g. "issue#123" or "ci:build@main". */
  key: string;
  title: string;
  /** Untrusted text from issues, PRs, CI logs or commits. Passed to agents as delimited data only. */
  untrustedDetail?: string;
  /** Paths triage believes are involved (a hint for the implementer; the gate never trusts it). */
  paths?: string[];
}

export interface Finding {
  severity: 'info' | 'watch' | 'high';
  summary: string;
  itemKey?: string;
}

export interface TriageOutput {
  decision: 'noop' | 'report' | 'act';
  summary: string;
  findings: Finding[];
  /** The items worth acting on, most important first. Required when decision is "act". */
  items: WorkItem[];
}

export interface ImplementOutput {
  /** What the implementer says it did. Informational only: the gate reads the workspace's diff. */
  summary: string;
  /** Whether the implementer itself believes it finished. */
  completed: boolean;
}

export type Verdict = 'APPROVE' | 'REJECT' | 'ESCALATE_HUMAN';

export interface CheckOutput {
  verdict: Verdict;
  reasons: string[];
}

export interface AgentOutputs {
  triage: TriageOutput;
  implement: ImplementOutput;
  check: CheckOutput;
}

/** A document the agent reads as instructions (pattern doc, LOOP.md prose, AGENTS.md, skills). */
export interface InstructionDocument {
  name: string;
  text: string;
}

/** What the role may do. Adapters map this onto their own permission systems. */
export interface RolePermissions {
  /** Only the implementer may write, and only inside `workspace.path`. */
  write: boolean;
  /** Whether the agent may run commands (always through the sandboxed runner). */
  execute: boolean;
}

export interface AgentRequest<R extends AgentRole = AgentRole> {
  role: R;
  tickId: string;
  plan: ExecutionPlan;
  /** Trusted instructions, in order. */
  instructions: readonly InstructionDocument[];
  permissions: RolePermissions;
  /** The token reservation for this call: the backend must stop before it spends more. */
  maxTokens: number;
  /** The item being worked on (implement and check roles). */
  item?: WorkItem;
  /** Items the deterministic probes found (triage role): untrusted data to triage. */
  discovered?: readonly WorkItem[];
  /** The checked-out workspace (implement and check roles). */
  workspace?: WorkspaceHandle;
  /** Evidence gathered by the verifier's own commands (check role). */
  evidence?: readonly CommandEvidence[];
  /** The changed paths as the workspace reports them (check role). */
  changes?: ChangeSet;
  /** A runner the agent may use for its commands: already sandboxed to the workspace. */
  commands?: CommandRunner;
  /** File access confined to the workspace, when the workspace adapter offers it. */
  files?: WorkspaceFiles;
  /** Previous failure on this item, so the next attempt can do better. */
  previousFailure?: string;
  signal?: AbortSignal;
}

export type AgentResult<R extends AgentRole = AgentRole> =
  | { ok: true; output: AgentOutputs[R]; usage: Usage; transcript?: string }
  | (Failure<BackendFailureReason> & { usage: Usage; transcript?: string });

export type BackendFailureReason =
  | 'error'
  | 'timeout'
  | 'budget'
  | 'rate-limited'
  | 'quota-exhausted'
  | 'auth'
  | 'max-turns'
  | 'not-installed'
  | 'aborted'
  | 'invalid-output';

/**
 * A model backend serving a tick's roles. One `run` per role call.
 *
 * @example
 * ```ts
 * const backend: AgentBackend = {
 *   specificationVersion: 'agent-backend-v1',
 *   name: 'echo',
 *   async run(request) {
 *     return { ok: true, output: { decision: 'noop', summary: 'nothing', findings: [], items: [] } as never,
 *              usage: { ...ZERO_USAGE } };
 *   },
 * };
 * ```
 */
export interface AgentBackend {
  readonly specificationVersion: 'agent-backend-v1';
  readonly name: string;
  run<R extends AgentRole>(request: AgentRequest<R>): Promise<AgentResult<R>>;
  /** Optional: release processes, sockets. */
  close?(): Promise<void>;
}

// ---------------------------------------------------------------- workspace

export interface WorkspaceHandle {
  id: string;
  /** Absolute path the agent works in (a git worktree for the git adapter). */
  path: string;
  branch: string;
  baseCommit: string;
  itemKey: string;
}

export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type-changed' | 'untracked';

export interface ChangedFile {
  path: string;
  status: ChangeStatus;
  /** The old path of a rename or copy. */
  from?: string;
  binary: boolean;
}

export interface ChangeSet {
  files: ChangedFile[];
  /** Unified diff text (may be truncated by the adapter); used by anti-gaming checks. */
  patch: string;
}

/** Every path a change touches, old and new names of renames included — what the gate evaluates. */
export function changedPaths(changes: ChangeSet): string[] {
  const paths = new Set<string>();
  for (const file of changes.files) {
    paths.add(file.path);
    if (file.from) paths.add(file.from);
  }
  return [...paths].sort();
}

export interface CommitRequest {
  message: string;
  trailers: Record<string, string>;
  author: { name: string; email: string };
}

export interface CommitRecord {
  sha: string;
  branch: string;
}

/** File access confined to one workspace. Paths are relative to the workspace root. */
export interface WorkspaceFiles {
  read(path: string): Promise<string | null>;
  write(path: string, content: string): Promise<void>;
}

export type WorkspaceResult<T> = ({ ok: true } & T) | Failure<'git' | 'conflict' | 'io' | 'not-found'>;

/**
 * Where the implementer works. The git adapter gives each attempt its own
 * worktree; the memory adapter keeps files in a Map.
 */
export interface Workspace {
  readonly specificationVersion: 'workspace-v1';
  /** Prune what a crashed tick left behind. Called once at the start of each act-tick. */
  recover?(): Promise<void>;
  prepare(request: { tickId: string; patternId: string; item: WorkItem; branchPrefix: string; baseBranch: string | null }): Promise<WorkspaceResult<{ handle: WorkspaceHandle }>>;
  /** The change against the base commit, read from the workspace itself — never from the agent. */
  changes(handle: WorkspaceHandle): Promise<WorkspaceResult<{ changes: ChangeSet }>>;
  commit(handle: WorkspaceHandle, request: CommitRequest): Promise<WorkspaceResult<{ commit: CommitRecord }>>;
  /** Rejected or failed: throw the attempt away. */
  discard(handle: WorkspaceHandle): Promise<void>;
  /** Escalated: keep it for a human to decide on. */
  keep(handle: WorkspaceHandle, reason: string): Promise<void>;
  /** Optional capability: file access confined to the workspace (used by tool-loop and mock agents). */
  files?(handle: WorkspaceHandle): WorkspaceFiles;
}

// ----------------------------------------------------------------- delivery

export interface DeliveryRequest {
  handle: WorkspaceHandle;
  commit: CommitRecord;
  patternId: string;
  itemKey: string;
  /** Idempotency key: the same key never opens a second pull request or pushes a second branch. */
  dedupeKey: string;
  title: string;
  body: string;
  merge: boolean;
}

export interface DeliveryRecord {
  kind: 'local' | 'pushed' | 'pull-request' | 'merged' | 'duplicate';
  url?: string;
  branch: string;
}

/** Pushes, opens pull requests, merges. Absent → commits stay on a local branch. */
export interface Delivery {
  readonly specificationVersion: 'delivery-v1';
  deliver(request: DeliveryRequest): Promise<({ ok: true } & DeliveryRecord) | Failure<'duplicate' | 'rate-limited' | 'conflict' | 'push' | 'api'>>;
}

// ---------------------------------------------------------- command runner

export interface CommandRunOptions {
  cwd: string;
  timeoutMs: number;
  /** Extra writable directories beyond `cwd`. */
  writableRoots?: string[];
  network?: 'none' | 'loopback';
  /** Extra environment (already allowlisted by the caller). */
  env?: Record<string, string>;
  outputLimitBytes?: number;
  signal?: AbortSignal;
}

export interface CommandEvidence {
  command: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** Tail of combined output, capped and redacted. */
  output: string;
  /** Clock time when the command finished; evidence older than the last write does not count. */
  finishedAt: number;
}

/** Runs commands, sandboxed where the adapter can. Failures of the command are data, not exceptions. */
export interface CommandRunner {
  readonly specificationVersion: 'command-runner-v1';
  /** "bwrap", "seatbelt", "none"… shown in evidence and refused at L3 when "none". */
  readonly isolation: string;
  run(command: CommandSpec, options: CommandRunOptions): Promise<CommandEvidence>;
}

// --------------------------------------------------------------- discovery

export interface DiscoveryResult {
  /** False when every probe found nothing: the tick ends as a no-op without any model call. */
  found: boolean;
  /** One line per probe, for the state file and run log. */
  notes: string[];
  /** Items the probes found (passed to triage as untrusted data). */
  items: WorkItem[];
}

/** Cheap deterministic probes that run before any LLM call. */
export interface Discovery {
  readonly specificationVersion: 'discovery-v1';
  discover(plan: ExecutionPlan): Promise<DiscoveryResult>;
}

// ------------------------------------------------------------- item leases

export type ItemLeaseResult = { ok: true; release(): Promise<void> } | { ok: false; holder: string; message: string };

/**
 * Optional: one loop at a time per work item, across loops and processes.
 * The engine takes the item's lease before it prepares a workspace and
 * releases it when the act path ends, whatever the outcome.
 *
 * @example
 * ```ts
 * const items: ItemLeases = { specificationVersion: 'item-leases-v1', async acquire() { return { ok: true, release: async () => {} }; } };
 * ```
 */
export interface ItemLeases {
  readonly specificationVersion: 'item-leases-v1';
  acquire(request: { itemKey: string; patternId: string; tickId: string }): Promise<ItemLeaseResult>;
}

// ------------------------------------------------------------ budget ledger

export interface SpendEntry {
  at: number;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  patternId: string;
  tickId: string;
  phase: AgentRole;
  tokens: number;
  costUsd: number | null;
}

/**
 * Durable spend storage. `record` must be durable when it resolves: spend is
 * recorded before a tick reports success and survives a crash right after.
 */
export interface BudgetLedger {
  readonly specificationVersion: 'budget-ledger-v1';
  spentOn(day: string, patternId: string): Promise<number>;
  record(entry: SpendEntry): Promise<void>;
}

// -------------------------------------------------------------- kill switch

export interface PauseStatus {
  paused: boolean;
  /** Which form set it, e.g. "file loop-pause-all", "STATE.md line", "env LOOP_RUNTIME_PAUSE". */
  source?: string;
}

/** Honours every observed form of the kill switch. Checked at tick start and before every backend call. */
export interface KillSwitch {
  check(): Promise<PauseStatus>;
}

// ------------------------------------------------------------- attempts

export interface AttemptRecord {
  itemKey: string;
  tickId: string;
  at: number;
  outcome: 'success' | 'failure' | 'noop';
  error?: string;
  tokensUsed: number;
}

/** Attempt history per item (loop-ledger.json for the file adapter). */
export interface AttemptLedger {
  history(): Promise<readonly AttemptRecord[]>;
  append(record: AttemptRecord): Promise<void>;
}

// -------------------------------------------------------------------- state

/** What goes to the state file and run log after each tick. */
export interface TickRecord {
  tickId: string;
  patternId: string;
  startedAt: number;
  finishedAt: number;
  /** Canonical run-log outcome. */
  outcome: 'no-op' | 'report-only' | 'fix-proposed' | 'escalated';
  /** Our finer-grained kind (TickResult.kind). */
  kind: string;
  level: string;
  itemsFound: number;
  actionsTaken: number;
  escalations: number;
  tokens: number;
  summary: string;
  findings: Finding[];
  /** Items waiting on a human: what to decide and how. */
  waiting: { itemKey: string; title: string; loopAction: string; humanDecision: string }[];
}

/**
 * Writes STATE.md (or `<pattern>-state.md`) and loop-run-log.md. Must never
 * destroy sections it does not own.
 */
export interface StateWriter {
  readonly specificationVersion: 'state-writer-v1';
  recordTick(record: TickRecord): Promise<void>;
  /** A one-line note (budget halt, kill switch) in the state file; no run-log line. */
  note(patternId: string, at: number, line: string): Promise<void>;
}

// ------------------------------------------------------------------ events

export type EngineEvent =
  | { type: 'tick-start'; tickId: string; at: number }
  | { type: 'phase-start'; tickId: string; phase: string; at: number }
  | { type: 'phase-end'; tickId: string; phase: string; at: number; tokens: number; note?: string }
  | { type: 'tick-end'; tickId: string; at: number; kind: string };

export type EngineObserver = (event: EngineEvent) => void;
