/**
 * Human approval in a fleet as a durable wait. A fleet tick that escalates
 * captures its kept change (a durable step) and starts the workflow
 * `loop-runtime.approval` with the id `approval:<scope>:<change id>` — a
 * child of the tick, NOT on the partitioned tick queue, so the loop's next
 * ticks are not held for days. The workflow waits in `DBOS.recv` on the
 * topic `decision` (no tick, no model, no worktree lock: one indexed query
 * every ten seconds plus a LISTEN notification), survives its worker's death
 * (the sweeper recovers it like a tick; messages are rows), and acts on each
 * decision `approve`/`reject` sends as one durable step: the same
 * `approveChange`/`rejectChange` as on files, after re-creating the change
 * from its capture when this worker's disk does not hold it. Every decision
 * gets a reply (a DBOS event `reply:<request id>`); the workflow ends at the
 * first decision that acts, so a second one is refused by the sender.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { TickResult } from '../core/engine/tick-result.js';
import { isLoopRuntimeError, LoopRuntimeError } from '../core/errors.js';
import type { Clock } from '../core/ports/index.js';
import type { DeliveryLedgerStore } from '../adapters/delivery/delivery-flow.js';
import type { OutcomeStore } from '../adapters/outcomes/outcome-store.js';
import type { PostgresRunHistory } from '../adapters/postgres/index.js';
import { resolvePlan, type LoadedProject } from '../project/load-project.js';
import { approveChange, recordOutOfTick, rejectChange, type ApproveResult, type RejectResult } from '../use-cases/approval.js';
import { redactorFor } from '../composition/wiring.js';
import {
  APPROVAL_WAIT_SECONDS,
  APPROVAL_WORKFLOW,
  approvalWorkflowId,
  DECISION_TOPIC,
  replyKey,
  type ApprovalInput,
  type ApprovalOutcome,
  type DecisionError,
  type DecisionMessage,
  type DecisionReply,
  type KeptChange,
} from './approval-types.js';
import { captureKeptChange, ensureKeptChange, holdsKeptChange, type KeptChangeLocation } from './kept-change.js';
import { whileRunning } from './running-workflows.js';

/** What a worker gives an approval of one of its repositories. */
export interface ApprovalContext {
  project: LoadedProject;
  clock: Clock;
  env: Record<string, string | undefined>;
  /** The fleet's delivery ledger (undefined: the file beside the repository). */
  deliveryLedger: DeliveryLedgerStore | undefined;
  /** The fleet's outcome lines (approved changes are followed there). */
  outcomes: OutcomeStore;
  history: Pick<PostgresRunHistory, 'recordDecision'>;
  /** This worker's executor id (named in errors and records). */
  worker: string;
}

export type ApprovalWiring = (scope: string) => Promise<ApprovalContext>;

let wiring: ApprovalWiring | null = null;

/** Lets this process act on approvals (one fleet worker per process; `null` stops it). */
export function serveApprovals(approvals: ApprovalWiring | null): void {
  wiring = approvals;
}

async function contextFor(scope: string): Promise<ApprovalContext> {
  if (!wiring) throw new LoopRuntimeError('INTERNAL', 'An approval workflow ran in a process that is not a fleet worker.');
  return wiring(scope);
}

function locationOf(context: ApprovalContext): KeptChangeLocation {
  return { root: context.project.root, worktreesDir: context.project.settings?.worktreesDir ?? null, clock: context.clock };
}

function asDecisionError(error: unknown): DecisionError {
  if (isLoopRuntimeError(error)) {
    const suffix = error.fix ? ` To fix: ${error.fix}` : '';
    const message = suffix && error.message.endsWith(suffix) ? error.message.slice(0, -suffix.length) : error.message;
    return { code: error.code, message, ...(error.fix ? { fix: error.fix } : {}) };
  }
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

/** A rejection where this disk does not hold the change: nothing here to discard; the decision is recorded all the same. */
async function rejectElsewhere(context: ApprovalContext, change: KeptChange): Promise<RejectResult> {
  const resolved = await resolvePlan(context.project, change.pattern);
  if (resolved.ok) {
    const target = { pattern: change.pattern, itemKey: change.itemKey, tickId: change.tickId };
    const line = `rejected by a human; ${change.branch} was kept by ${change.keptBy}, not on ${context.worker}: nothing to discard here`;
    await recordOutOfTick(context.project.root, resolved.plan, target, redactorFor(context.env, context.project.root), context.clock.now(), line, { kind: 'human-rejected', outcome: 'no-op', actionsTaken: 0, decided: true });
  }
  return { status: 'rejected', id: change.id, pattern: change.pattern, branch: change.branch };
}

/**
 * Acts on one decision on this worker (the approval workflow runs it as one durable step). Never throws: a failure
 * is the reply, and the change keeps waiting.
 *
 * @example
 * ```ts
 * const { reply } = await actOnDecision({ scope, change }, { requestId: 'r1', decision: 'reject', yes: false });
 * ```
 */
export async function actOnDecision(input: ApprovalInput, message: DecisionMessage): Promise<{ reply: DecisionReply; at: number }> {
  let at = Date.now();
  try {
    const context = await contextFor(input.scope);
    at = context.clock.now();
    const { change } = input;
    const location = locationOf(context);
    const options = { clock: context.clock, env: context.env, deliveryLedger: context.deliveryLedger, outcomes: context.outcomes };
    let result: ApproveResult | RejectResult;
    if (message.decision === 'reject') {
      const held = await holdsKeptChange(location, change);
      result = held ? await rejectChange(context.project, change.id, options) : await rejectElsewhere(context, change);
      const note = held ? `${change.branch} discarded` : `${change.branch} was kept by ${change.keptBy}, nothing to discard on ${context.worker}`;
      await context.history.recordDecision(change.tickId, { note: `${change.id}: rejected by a human; ${note}` });
    } else {
      await ensureKeptChange(location, change, context.worker);
      result = await approveChange(context.project, change.id, { ...options, yes: message.yes });
      if (result.status === 'applied') {
        const applied = result;
        const resolved = await resolvePlan(context.project, change.pattern);
        const { recordApproval } = await import('../use-cases/outcomes/record-proposals.js');
        // Outcome tracking is best effort, as in `runtime.approve`: the commit is made and recorded either way.
        if (resolved.ok) await recordApproval(context.project.root, resolved.plan, applied, at, context.outcomes).catch(() => undefined);
        const url = 'url' in applied.delivery ? (applied.delivery.url ?? null) : null;
        await context.history.recordDecision(change.tickId, { note: `${change.id}: approved by a human; committed ${applied.commit.slice(0, 12)} on ${applied.branch}`, commit: applied.commit, pullRequest: url });
      }
    }
    return { reply: { ok: true, result }, at };
  } catch (error) {
    return { reply: { ok: false, error: asDecisionError(error) }, at };
  }
}

async function waitForDecision(input: ApprovalInput): Promise<ApprovalOutcome> {
  for (;;) {
    const message = await DBOS.recv<DecisionMessage>(DECISION_TOPIC, APPROVAL_WAIT_SECONDS);
    if (message === null) {
      // Nobody decided within the wait: the change stays where it is kept (`approve` on files still finds it there).
      const at = await DBOS.runStep(async () => Date.now(), { name: 'approval.expired' });
      return { status: 'expired', at };
    }
    const decided = await DBOS.runStep(() => actOnDecision(input, message), { name: `approval.${message.decision}` });
    await DBOS.setEvent(replyKey(message.requestId), decided.reply);
    if (decided.reply.ok && decided.reply.result.status !== 'needs-confirmation') {
      return { status: 'decided', decision: message.decision, result: decided.reply.result, at: decided.at };
    }
  }
}

// Counted as running here while it waits: the orphan sweep must not hand a live wait back to the queue.
const approvalWorkflow = DBOS.registerWorkflow((input: ApprovalInput) => whileRunning(() => waitForDecision(input)), { name: APPROVAL_WORKFLOW });

/**
 * Called by a fleet tick (inside its workflow) that escalated: captures the
 * kept change from this worker's disk as a durable step and starts its
 * approval wait. A replayed tick gets the same capture and the same child,
 * so there is one wait per change. Returns the approval workflow's id, or
 * null when the tick kept no change.
 *
 * @example
 * ```ts
 * if (result.kind === 'escalated') await awaitApproval(scope, result, { root, worktreesDir: null, clock }, executorId);
 * ```
 */
export async function awaitApproval(scope: string, result: Extract<TickResult, { kind: 'escalated' }>, location: KeptChangeLocation, worker: string): Promise<string | null> {
  const change = await DBOS.runStep(() => captureKeptChange(location, result.tickId, worker), { name: 'approval.capture' });
  if (!change) return null;
  const workflowID = approvalWorkflowId(scope, change.id);
  await DBOS.startWorkflow(approvalWorkflow, { workflowID })({ scope, change });
  return workflowID;
}
