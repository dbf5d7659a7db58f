import type { AbortSignalLike } from './abort-signal.js';
import type { ExecutionPlan } from '../plan/execution-plan.js';
import type { CommandEvidence, CommandRunner } from './command-runner.js';
import type { Usage, Failure } from './usage.js';
import type { WorkspaceHandle, ChangeSet, WorkspaceFiles } from './workspace.js';

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
  signal?: AbortSignalLike;
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
