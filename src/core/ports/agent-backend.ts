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
  /**
   * Keys earlier versions gave this same item (a CI failure was `ci-run#<id>` before it became `ci:<workflow>@<branch>`,
   * see core/schedule/ci-failure-key.ts): a proposal recorded under one of them is this item's open proposal.
   */
  formerKeys?: readonly string[];
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

/** What every role call carries, whatever the role. */
export interface AgentRequestBase {
  tickId: string;
  plan: ExecutionPlan;
  /** Trusted instructions, in order. */
  instructions: readonly InstructionDocument[];
  permissions: RolePermissions;
  /** The token reservation for this call: the backend must stop before it spends more. */
  maxTokens: number;
  /** The most model turns (tool-use round trips) this call may take; past it the backend stops with `max-turns`. */
  maxTurns: number;
  signal?: AbortSignalLike;
  /** Told while the call runs, e.g. that the agent is retrying its model endpoint; optional for backends to call. */
  onProgress?: (progress: AgentProgress) => void;
}

/**
 * What a running call tells a watching human before its result. `retry`: the agent is trying the model endpoint
 * again after `attempts` failed attempts in a row (seen by loop-runtime itself: at the metering proxy for an agent
 * CLI, in the shared retry policy for an HTTP backend).
 *
 * @example
 * ```ts
 * request.onProgress?.({ type: 'retry', attempts: 2, endpoint: 'https://api.openai.com/v1', failure: 'HTTP 503' });
 * ```
 */
export interface AgentProgress {
  type: 'retry';
  /** Failed attempts so far, in a row (≥ 1); the retry now starting is attempt `attempts + 1`. */
  attempts: number;
  /** The endpoint the user configured (never loop-runtime's own proxy). */
  endpoint: string;
  /** How the last attempt failed: `refused (ECONNREFUSED)`, `HTTP 503`, `ETIMEDOUT`. */
  failure: string;
}

/** Triage: read-only, no workspace; decides whether anything needs doing. */
export interface TriageRequest extends AgentRequestBase {
  role: 'triage';
  /** Items the deterministic probes found: untrusted data to triage. */
  discovered?: readonly WorkItem[];
}

/** Implement: the only role that may write, and only inside `workspace.path`. */
export interface ImplementRequest extends AgentRequestBase {
  role: 'implement';
  item: WorkItem;
  workspace: WorkspaceHandle;
  /** A runner the agent may use for its commands: already sandboxed to the workspace. */
  commands?: CommandRunner;
  /** File access confined to the workspace, when the workspace adapter offers it. */
  files?: WorkspaceFiles;
  /** Previous failure on this item, so the next attempt can do better. */
  previousFailure?: string;
  /** How the change will be verified and what failed at the base: what a human would be told before starting. */
  verification?: ImplementVerification;
}

/**
 * What the implementer is told about verification: the commands the verifier runs after its change (trusted: from
 * the plan), with the test runner each drives, and the base's failing commands with their failing test ids and
 * output tail (untrusted: the repository's own text, already redacted and capped).
 */
export interface ImplementVerification {
  commands: Array<{ command: string; runner: string | null; runs?: string }>;
  baseFailing: Array<{ command: string; exitCode: number | null; tests: string[]; output: string }>;
}

/** Check: read-only review of the implementer's change against the verifier's own evidence. */
export interface CheckRequest extends AgentRequestBase {
  role: 'check';
  item: WorkItem;
  workspace: WorkspaceHandle;
  /** Evidence gathered by the verifier's own commands. */
  evidence: readonly CommandEvidence[];
  /** The changed paths as the workspace reports them. */
  changes: ChangeSet;
  /** Read-only file access to the workspace, when the workspace adapter offers it. */
  files?: WorkspaceFiles;
}

/** One role call. `role` discriminates which fields exist. */
export type AgentRequest = TriageRequest | ImplementRequest | CheckRequest;

/** The request type of one role, e.g. `RequestFor<'check'>` is `CheckRequest`. */
export type RequestFor<R extends AgentRole> = Extract<AgentRequest, { role: R }>;

/** A successful answer: the role it answers and that role's output, never another's. */
export type AgentAnswer = { [R in AgentRole]: { ok: true; role: R; output: AgentOutputs[R]; usage: Usage; transcript?: string } }[AgentRole];

/** A failed call. Usage is what was really spent, so the engine can settle it. */
export type BackendFailure = Failure<BackendFailureReason> & { usage: Usage; transcript?: string };

export type AgentResult = AgentAnswer | BackendFailure;

/** The result of one role's call: that role's answer or a failure. */
export type ResultFor<R extends AgentRole> = Extract<AgentAnswer, { role: R }> | BackendFailure;

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

function answersRole<R extends AgentRole>(role: R, answer: AgentAnswer): answer is Extract<AgentAnswer, { role: R }> {
  return answer.role === role;
}

/**
 * Narrows a backend's result to the role that was asked. An answer tagged with
 * another role is never read as this role's output: it becomes an
 * `invalid-output` failure that keeps the usage, so the spend is still settled.
 *
 * @example
 * ```ts
 * const result = resultForRole('check', await backend.run(checkRequest));
 * if (result.ok) result.output.verdict; // CheckOutput, guaranteed
 * ```
 */
export function resultForRole<R extends AgentRole>(role: R, result: AgentResult): ResultFor<R> {
  if (!result.ok || answersRole(role, result)) return result;
  return {
    ok: false,
    reason: 'invalid-output',
    message: `The backend answered the ${role} call with a ${String(result.role)} result. To fix: the backend must return { ok: true, role: '${role}', output } for a ${role} request.`,
    retryable: false,
    usage: result.usage,
    detail: { expectedRole: role, answeredRole: result.role },
    ...(result.transcript !== undefined ? { transcript: result.transcript } : {}),
  };
}

/**
 * A model backend serving a tick's roles. One `run` per role call; the result
 * is tagged with the request's role. Expected failures are returned, not thrown.
 *
 * @example
 * ```ts
 * const backend: AgentBackend = {
 *   specificationVersion: 'agent-backend-v2',
 *   name: 'quiet',
 *   async run(request) {
 *     if (request.role !== 'triage') {
 *       return { ok: false, reason: 'error', message: 'triage only', retryable: false, usage: { ...ZERO_USAGE } };
 *     }
 *     return { ok: true, role: 'triage', output: { decision: 'noop', summary: 'nothing', findings: [], items: [] }, usage: { ...ZERO_USAGE } };
 *   },
 * };
 * ```
 */
export interface AgentBackend {
  readonly specificationVersion: 'agent-backend-v2';
  readonly name: string;
  run(request: AgentRequest): Promise<AgentResult>;
  /** Optional: release processes, sockets. */
  close?(): Promise<void>;
}
