/**
 * `approve` / `reject` (CLI, console and API alike: they all call
 * `runtime.approve`/`runtime.reject`) when the project's store is Postgres:
 * the decision goes to the fleet's approval workflow for that change
 * (`DBOSClient.send`, no launched runtime needed) and the answer comes back
 * as that workflow's reply, in the same shape as a decision on files. A
 * change nobody waits for in the fleet is left to the file path (which says
 * "Nothing waits for a decision under …" with the fix); one already decided
 * is refused with what was decided.
 */
import { randomUUID } from 'node:crypto';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { LoopRuntimeError, type LoopErrorCode } from '../core/errors.js';
import type { LoadedProject } from '../project/load-project.js';
import { APPROVAL_WORKFLOW, approvalWorkflowId, DECISION_TOPIC, replyKey, type ApprovalInput, type ApprovalOutcome, type DecisionMessage, type DecisionReply } from '../fleet/approval-types.js';
import type { ApproveResult, InboxItem, RejectResult } from './approval.js';
import { chooseStore } from '../composition/stores/store-choice.js';

/** How long `approve`/`reject` wait for a worker to act on the decision before saying it is queued. */
const REPLY_WAIT_MS = 120_000;

interface FleetTarget {
  client: DBOSClient;
  scope: string;
  database: string;
}

/** The fleet's DBOS client for this project, or null when its store is files or no worker ever ran on the database. */
async function openFleet(project: LoadedProject, env: Record<string, string | undefined>): Promise<FleetTarget | null> {
  const choice = chooseStore(project.settings, env);
  if (choice.kind !== 'postgres') return null;
  const { loadFleetModule } = await import('../adapters/postgres/fleet-packages.js');
  const [{ projectScope, sharedDatabase }, { DBOSClient }] = await loadFleetModule(() => Promise.all([import('../composition/stores/postgres-stores.js'), import('@dbos-inc/dbos-sdk')]), 'the fleet store is configured');
  const database = await sharedDatabase(choice.url);
  const found = await database.query<{ table: string | null }>('STATE_FAILED', 'look for the fleet’s workflows', `SELECT to_regclass('dbos.workflow_status')::text AS table`);
  if (!found[0]?.table) return null;
  const client = await DBOSClient.create({ systemDatabaseUrl: choice.url, applicationName: 'loop-runtime', systemDatabasePoolSize: 2, systemDatabaseIdleTransactionTimeoutMs: 0 });
  return { client, scope: await projectScope(project.root, choice.scope), database: database.name };
}

const TERMINAL = new Set(['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED']);

/** The approval workflow for a change id, else the newest waiting one for an item key. */
async function findApproval(fleet: FleetTarget, idOrItemKey: string): Promise<{ id: string; status: string; output: unknown } | null> {
  const exact = await fleet.client.getWorkflow(approvalWorkflowId(fleet.scope, idOrItemKey));
  if (exact) return { id: exact.workflowID, status: exact.status, output: exact.output };
  const waiting = await fleet.client.listWorkflows({
    workflowName: APPROVAL_WORKFLOW,
    workflow_id_prefix: approvalWorkflowId(fleet.scope, ''),
    status: ['PENDING', 'ENQUEUED'],
    loadInput: true,
    sortDesc: true,
  });
  const match = waiting.find((workflow) => (workflow.input?.[0] as ApprovalInput | undefined)?.change.itemKey === idOrItemKey);
  return match ? { id: match.workflowID, status: match.status, output: undefined } : null;
}

function alreadyDecided(idOrItemKey: string, outcome: ApprovalOutcome | undefined, status: string): LoopRuntimeError {
  if (outcome?.status === 'decided') {
    const commit = outcome.result.status === 'applied' ? ` (committed ${outcome.result.commit.slice(0, 12)} on ${outcome.result.branch})` : '';
    return new LoopRuntimeError('USAGE', `${idOrItemKey} was already ${outcome.decision === 'approve' ? 'approved' : 'rejected'} by a human at ${new Date(outcome.at).toISOString()}${commit}; a decision acts once.`, {
      fix: 'none needed; `loop-runtime history` shows the decision.',
    });
  }
  return new LoopRuntimeError('STATE_FAILED', `The fleet's wait for a decision on ${idOrItemKey} ended (${status}) without one.`, {
    fix: 'see the worker’s log; the change may still be kept on the worker that escalated it (`loop-runtime inbox` there).',
  });
}

/**
 * Sends the decision to the fleet and returns what the worker did, or null
 * when the fleet has no wait for this change (files decide then).
 *
 * @example
 * ```ts
 * const result = await decideInFleet(project, process.env, 'mock-1-abc', { decision: 'approve', yes: false });
 * if (result === null) await approveChange(project, 'mock-1-abc', options); // not a fleet change
 * ```
 */
export async function decideInFleet(project: LoadedProject, env: Record<string, string | undefined>, idOrItemKey: string, decision: { decision: 'approve'; yes: boolean }): Promise<ApproveResult | null>;
export async function decideInFleet(project: LoadedProject, env: Record<string, string | undefined>, idOrItemKey: string, decision: { decision: 'reject'; yes: boolean }): Promise<RejectResult | null>;
export async function decideInFleet(
  project: LoadedProject,
  env: Record<string, string | undefined>,
  idOrItemKey: string,
  decision: Omit<DecisionMessage, 'requestId'>,
): Promise<ApproveResult | RejectResult | null> {
  const fleet = await openFleet(project, env);
  if (!fleet) return null;
  try {
    const found = await findApproval(fleet, idOrItemKey);
    if (!found) return null;
    const outcome = found.output as ApprovalOutcome | undefined;
    if (TERMINAL.has(found.status)) {
      // A wait that expired leaves the change on its worker's disk, where the file path can still decide it.
      if (outcome?.status === 'expired') return null;
      throw alreadyDecided(idOrItemKey, outcome, found.status);
    }
    const message: DecisionMessage = { ...decision, requestId: randomUUID() };
    await fleet.client.send(found.id, message, DECISION_TOPIC, message.requestId);
    const deadline = Date.now() + REPLY_WAIT_MS;
    while (Date.now() < deadline) {
      const reply = await fleet.client.getEvent<DecisionReply>(found.id, replyKey(message.requestId), { timeoutSeconds: 1 });
      if (reply) return unwrap(reply);
      const status = await fleet.client.getWorkflow(found.id);
      if (status && TERMINAL.has(status.status)) {
        const late = await fleet.client.getEvent<DecisionReply>(found.id, replyKey(message.requestId), { timeoutSeconds: 0 });
        if (late) return unwrap(late);
        // Another decision was acted on first: this one never will be.
        throw alreadyDecided(idOrItemKey, status.output as ApprovalOutcome | undefined, status.status);
      }
    }
    throw new LoopRuntimeError('STATE_FAILED', `The ${decision.decision} of ${idOrItemKey} is stored in the fleet (${fleet.database}), but no worker acted on it within ${REPLY_WAIT_MS / 1000} s.`, {
      retryable: true,
      fix: 'make sure a `loop-runtime worker` serving this repository is running: it acts on the stored decision when it resumes the wait; `loop-runtime history` shows it once done.',
    });
  } finally {
    await fleet.client.destroy();
  }
}

function unwrap(reply: DecisionReply): ApproveResult | RejectResult {
  if (reply.ok) return reply.result;
  throw new LoopRuntimeError(reply.error.code as LoopErrorCode, reply.error.message, reply.error.fix ? { fix: reply.error.fix } : {});
}

/**
 * The escalated changes waiting in the fleet for this repository, as inbox
 * items (their worktree is on the worker named in `keptBy`).
 *
 * @example
 * ```ts
 * const waiting = await fleetInbox(project, process.env, Date.now());
 * ```
 */
export async function fleetInbox(project: LoadedProject, env: Record<string, string | undefined>, now: number): Promise<InboxItem[]> {
  const fleet = await openFleet(project, env);
  if (!fleet) return [];
  try {
    const waiting = await fleet.client.listWorkflows({ workflowName: APPROVAL_WORKFLOW, workflow_id_prefix: approvalWorkflowId(fleet.scope, ''), status: ['PENDING', 'ENQUEUED'], loadInput: true });
    return waiting
      .map((workflow) => (workflow.input?.[0] as ApprovalInput | undefined)?.change)
      .filter((change) => change !== undefined)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((change) => ({
        kind: 'escalated' as const,
        id: change.id,
        pattern: change.pattern,
        itemKey: change.itemKey,
        title: change.itemTitle,
        branch: change.branch,
        commit: null,
        path: project.root,
        reason: change.reason,
        createdAt: change.createdAt,
        ageMs: Math.max(0, now - (Date.parse(change.createdAt) || now)),
        keptBy: change.keptBy,
      }));
  } finally {
    await fleet.client.destroy();
  }
}
