/**
 * What a fleet's human approval is made of, shared by the worker that waits
 * (`approval-workflow.ts`) and the entry points that decide (`approve` /
 * `reject` from the CLI, the console and the API, through
 * `src/use-cases/fleet-decision.ts`). Plain data: everything here is stored by
 * DBOS as a workflow input, a message or an event.
 */
import type { ApproveResult, RejectResult } from '../use-cases/approval.js';

export const APPROVAL_WORKFLOW = 'loop-runtime.approval';
/** The topic `approve`/`reject` send their decision on. */
export const DECISION_TOPIC = 'decision';
/** How long an escalated change waits for a human before the wait ends (the change stays, approvable on its worker's disk). */
export const APPROVAL_WAIT_SECONDS = 30 * 24 * 60 * 60;

/**
 * The escalated change as the tick left it: its worktree entry and the text
 * of every file it changed (null: deleted), so a worker on another machine
 * can re-create it. Binary files are listed, not carried.
 */
export interface KeptChange {
  id: string;
  pattern: string;
  itemKey: string;
  itemTitle: string | null;
  tickId: string;
  branch: string;
  baseBranch: string | null;
  baseCommit: string;
  reason: string | null;
  createdAt: string;
  /** The worker that kept it (executor id). */
  keptBy: string;
  files: Record<string, string | null>;
  binary: string[];
}

/** The approval workflow's input. */
export interface ApprovalInput {
  scope: string;
  change: KeptChange;
}

/** A human's decision, sent with `DBOSClient.send` on `DECISION_TOPIC`. */
export interface DecisionMessage {
  /** Unique per request: the reply is published under `reply:<requestId>`. */
  requestId: string;
  decision: 'approve' | 'reject';
  /** approve --yes: apply even when the gate still escalates. */
  yes: boolean;
}

export interface DecisionError {
  code: string;
  message: string;
  fix?: string;
}

/** The reply to one decision message (a DBOS event). */
export type DecisionReply = { ok: true; result: ApproveResult | RejectResult } | { ok: false; error: DecisionError };

/** How an approval workflow ended. */
export type ApprovalOutcome = { status: 'decided'; decision: 'approve' | 'reject'; result: ApproveResult | RejectResult; at: number } | { status: 'expired'; at: number };

/**
 * The approval workflow's id: one per escalated change, so a second tick, a
 * replay or a recovery never starts a second wait.
 *
 * @example
 * ```ts
 * approvalWorkflowId('github.com/acme/demo', 'mock-1-m3x9'); // → 'approval:github.com/acme/demo:mock-1-m3x9'
 * ```
 */
export function approvalWorkflowId(scope: string, changeId: string): string {
  return `approval:${scope}:${changeId}`;
}

/** The event key of the reply to one decision. */
export function replyKey(requestId: string): string {
  return `reply:${requestId}`;
}
