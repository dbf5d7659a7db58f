/**
 * The act path of a tick (L2+): workspace → implementer → verifier → gate →
 * commit (and delivery) or escalate. Every exit path leaves the workspace
 * either committed, discarded (rejected/failed) or kept (escalated).
 */
import { checkGate, type GateAction } from '../gate/check-gate.js';
import { lastFailureOn } from './circuit-breaker.js';
import type { EnginePorts } from './engine-ports.js';
import { changedPaths, type AttemptRecord, type ChangedFile, type DeliveryRecord, type WorkItem, type WorkspaceHandle } from '../ports/index.js';
import { INTERRUPT_SOURCE, overrunHalt, type RoleCall, type TickContext } from './tick-context.js';
import type { TickBase, TickResult, VerificationSummary } from './tick-result.js';
import { runBaseline, verificationBrief, verifyChange } from './verify-phase.js';
import { cannotRunAtBase, type CannotRun } from '../verify/base-runnable.js';
import { commitMessage, pullRequestBody, pullRequestTitle } from './change-message.js';

type Outcome = TickResult extends infer T ? (T extends TickBase ? Omit<T, keyof TickBase> : never) : never;

export interface ActInput {
  item: WorkItem;
  history: readonly AttemptRecord[];
  /** `failedAttemptsOn(history, item)`, as the engine counted it when it picked the item (not walked again). */
  priorFailures: number;
}

/**
 * The act path under the item's lease (when an `items` port is injected):
 * an item another loop is working on is reported, not acted on.
 */
export async function act(context: TickContext, ports: EnginePorts, input: ActInput): Promise<Outcome> {
  // `return await`, not `return promise`: an async function resolved with a promise takes two more hops to settle.
  if (!ports.items) return await actOnItem(context, ports, input);
  const lease = await ports.items.acquire({ itemKey: input.item.key, patternId: context.plan.pattern.id, tickId: context.tickId });
  if (!lease.ok) {
    context.step('workspace', `item lease held: ${lease.message}`);
    return { kind: 'report', summary: lease.message, findings: [], items: [input.item], degraded: true, degradedReason: `item ${input.item.key} is leased by ${lease.holder}` };
  }
  try {
    return await actOnItem(context, ports, input);
  } finally {
    await lease.release();
  }
}

async function actOnItem(context: TickContext, ports: EnginePorts, input: ActInput): Promise<Outcome> {
  const { plan } = context;
  const { item } = input;
  const target = { patternId: plan.pattern.id, itemKey: item.key };
  const attempt = input.priorFailures + 1;
  const attemptsLeftAfterFailure = plan.attempts.maxPerItem - attempt;

  const recordAttempt = (outcome: AttemptRecord['outcome'], error?: string) => {
    // The error set on the record just built (same keys, same order), not spread in from a literal made per call.
    const record: AttemptRecord = { patternId: plan.pattern.id, itemKey: item.key, tickId: context.tickId, at: context.now(), outcome, tokensUsed: context.tokens };
    if (error) record.error = error;
    return ports.attempts.append(record);
  };

  /** A failed attempt: rejected while attempts remain, escalated on the last one. */
  const failAttempt = async (handle: WorkspaceHandle | null, reasons: string[], changes: ChangedFile[], verification: VerificationSummary | null): Promise<Outcome> => {
    await recordAttempt('failure', reasons.length > 0 ? reasons.join('; ') : 'rejected');
    if (attemptsLeftAfterFailure <= 0) {
      if (handle) await ports.workspace.keep(handle, `attempt ${attempt} of ${plan.attempts.maxPerItem} failed`);
      const reason = `Attempt ${attempt} of ${plan.attempts.maxPerItem} on ${item.key} failed: ${reasons.join('; ')}`;
      context.step('escalate', reason);
      return { kind: 'escalated', item, reason, changes, verification, gate: null, attempt };
    }
    if (handle) await ports.workspace.discard(handle);
    return { kind: 'rejected', item, reasons, changes, verification, attempt, attemptsLeft: attemptsLeftAfterFailure };
  };

  if (ports.workspace.recover) await ports.workspace.recover();
  const prepared = await ports.workspace.prepare({
    tickId: context.tickId,
    patternId: plan.pattern.id,
    item,
    branchPrefix: plan.delivery.branchPrefix,
    baseBranch: plan.delivery.baseBranch,
  });
  if (!prepared.ok) {
    context.step('workspace', `workspace failed: ${prepared.message}`);
    return { kind: 'failed', phase: 'workspace', message: prepared.message, retryable: prepared.retryable };
  }
  const handle = prepared.handle;
  context.step('workspace', `workspace ${handle.branch} at ${handle.baseCommit.slice(0, 12)}`);
  const files = ports.workspace.files?.(handle);
  const previousFailure = lastFailureOn(input.history, target);
  // Fail-to-pass evidence: which verification commands fail at the base, before the implementer touches it.
  const baseline = await runBaseline(context, ports, handle);
  if (context.interrupted) {
    // Stopped before the implementer wrote anything: nothing to keep for a human.
    await ports.workspace.discard(handle);
    return { kind: 'paused', source: INTERRUPT_SOURCE };
  }
  const cannotRun = baseline ? baseline.evidence.map(cannotRunAtBase).filter((entry): entry is CannotRun => entry !== null) : [];
  if (cannotRun.length > 0) {
    // Judging any change by a command that cannot run is paying an implementer for nothing: the tick stops here.
    await ports.workspace.discard(handle);
    const message = `Stopped before the implementer: ${cannotRun.map((entry) => entry.message).join(' ')}`;
    context.step('verify', message);
    return { kind: 'failed', phase: 'verify', message, retryable: false, cause: 'verification-cannot-run', cannotRun };
  }
  if (baseline && !baseline.fromCache && ports.workspace.resetToBase) {
    // The baseline's commands ran in this worktree: whatever they wrote must not become the implementer's change.
    // (From the cache, nothing ran: the worktree is as prepare() left it.)
    const reset = await ports.workspace.resetToBase(handle);
    if (!reset.ok) {
      await ports.workspace.discard(handle);
      context.step('workspace', `reset after the baseline failed: ${reset.message}`);
      return { kind: 'failed', phase: 'workspace', message: reset.message, retryable: reset.retryable };
    }
  }
  const brief = await verificationBrief(context, ports, handle, baseline);

  // Optional keys set on the request just built (same keys, same order), not spread in from a literal made per key.
  const request: Extract<RoleCall, { role: 'implement' }> = { role: 'implement', item, workspace: handle, permissions: { write: true, execute: ports.commands !== undefined } };
  if (ports.commands) request.commands = ports.commands;
  if (files) request.files = files;
  if (previousFailure) request.previousFailure = previousFailure;
  if (brief) request.verification = brief;
  const implemented = await context.callBackend(request);
  if (implemented.kind === 'paused' && context.interrupted) {
    // The operator stopped it: the half-done work stays for a look (inbox: approve or reject), unverified.
    await ports.workspace.keep(handle, `interrupted by ${context.interruptedBy} during the implementer; unverified`);
    return { kind: 'paused', source: implemented.source, kept: { path: handle.path, branch: handle.branch, itemKey: item.key, title: item.title } };
  }
  if (implemented.kind === 'paused') {
    await ports.workspace.discard(handle);
    return { kind: 'report', summary: `Stopped before the implementer: paused by ${implemented.source}.`, findings: [], items: [item], degraded: true, degradedReason: `kill switch (${implemented.source})` };
  }
  if (implemented.kind === 'unaffordable') {
    await ports.workspace.discard(handle);
    context.step('budget', implemented.message);
    return { kind: 'report', summary: `Reported instead of acting: ${implemented.message}`, findings: [], items: [item], degraded: true, degradedReason: 'budget' };
  }
  if (implemented.kind === 'overrun') {
    // Whatever the backend wrote is unverified and paid for beyond the budget: discarded, never kept or committed.
    await ports.workspace.discard(handle);
    return overrunHalt(implemented);
  }
  const implementResult = implemented.result;
  context.step('implement', implementResult.ok ? `implementer: ${implementResult.output.summary}` : `implementer failed: ${implementResult.message}`, implemented.tokens);
  if (!implementResult.ok) {
    if (['auth', 'quota-exhausted', 'not-installed'].includes(implementResult.reason)) {
      await ports.workspace.discard(handle);
      await recordAttempt('failure', implementResult.message);
      return { kind: 'halted', reason: 'backend-stopped', message: implementResult.message };
    }
    const outcome = await failAttempt(handle, [`implementer failed: ${implementResult.message}`], [], null);
    return outcome.kind === 'rejected' ? { kind: 'failed', phase: 'implement', message: implementResult.message, retryable: implementResult.retryable } : outcome;
  }
  const lastWriteAt = context.now();

  const diff = await ports.workspace.changes(handle);
  if (!diff.ok) {
    await ports.workspace.discard(handle);
    return { kind: 'failed', phase: 'workspace', message: diff.message, retryable: diff.retryable };
  }
  const changes = diff.changes;
  const paths = changedPaths(changes);
  if (paths.length === 0) return failAttempt(handle, ['the implementer changed no files'], [], null);

  const verified = await verifyChange(context, ports, handle, item, changes, lastWriteAt, baseline);
  if (verified.kind === 'overrun') {
    await ports.workspace.discard(handle);
    return overrunHalt(verified);
  }
  if (verified.kind === 'paused' && context.interrupted) {
    // Not a failed attempt and no verdict: a killed command says nothing about the change (the circuit breaker never sees it).
    await ports.workspace.keep(handle, `interrupted by ${context.interruptedBy} during verification; unverified`);
    return { kind: 'paused', source: verified.source, kept: { path: handle.path, branch: handle.branch, itemKey: item.key, title: item.title } };
  }
  if (verified.kind === 'paused' || verified.kind === 'unaffordable') {
    await ports.workspace.discard(handle);
    const reason = verified.kind === 'paused' ? `kill switch (${verified.source})` : 'budget';
    return { kind: 'report', summary: `Stopped before verification finished: ${reason}.`, findings: [], items: [item], degraded: true, degradedReason: reason };
  }
  const verification: VerificationSummary = { verdict: verified.verdict, reasons: verified.reasons, evidence: verified.evidence };
  if (baseline) verification.baseline = baseline;
  if (verified.baseTests) verification.baseTests = verified.baseTests;
  if (verified.verificationEdits) verification.verificationEdits = verified.verificationEdits;
  if (verified.verdict === 'REJECT') return failAttempt(handle, verified.reasons, changes.files, verification);
  if (verified.verdict === 'ESCALATE_HUMAN') {
    await ports.workspace.keep(handle, verified.reasons.join('; '));
    await recordAttempt('noop', 'escalated to a human by the verifier');
    const reason = `The verifier asks a human: ${verified.reasons.join('; ')}`;
    context.step('escalate', reason);
    return { kind: 'escalated', item, reason, changes: changes.files, verification, gate: null, attempt };
  }

  const commitGate = Object.assign(checkGate(plan.gate, 'commit', paths), { action: 'commit' as GateAction });
  if (!commitGate.allowed) {
    await ports.workspace.keep(handle, commitGate.reason);
    await recordAttempt('noop', `gate: ${commitGate.trigger}`);
    context.step('gate', `escalated by gate (${commitGate.trigger}): ${commitGate.reason}`);
    return { kind: 'escalated', item, reason: commitGate.reason, changes: changes.files, verification, gate: commitGate, attempt };
  }
  if (!plan.phases.commit.enabled) {
    const reason = `The change passed verification, but the plan has the commit phase off at ${plan.level}; it is kept for a human.`;
    await ports.workspace.keep(handle, reason);
    await recordAttempt('noop', 'commit phase off');
    context.step('escalate', reason);
    return { kind: 'escalated', item, reason, changes: changes.files, verification, gate: commitGate, attempt };
  }
  let gate = commitGate;
  let merge = false;
  if (plan.phases.merge.enabled && plan.delivery.autoMerge) {
    const mergeGate = Object.assign(checkGate(plan.gate, 'auto-merge', paths), { action: 'auto-merge' as GateAction });
    // Defence in depth: an approval reaches here only with fresh evidence; a merge without any is never asked for.
    merge = mergeGate.allowed && verification.verdict === 'APPROVE' && verification.evidence.length > 0;
    gate = mergeGate.allowed ? mergeGate : commitGate;
    context.step('gate', mergeGate.allowed ? 'gate (auto-merge): allowed — safe + allowlisted' : `gate (auto-merge): not allowed, the commit waits for human review — ${mergeGate.reason}`);
  } else {
    context.step('gate', `gate (commit): allowed — ${paths.length} path(s) within policy (${plan.gate.source})`);
  }

  // The change's words come from the change, never from the item's title (an outsider may have written it).
  const facts = { item, summary: implementResult.output.summary, paths, verification };
  const committed = await ports.workspace.commit(handle, {
    message: commitMessage(context, facts),
    trailers: { 'Loop-Pattern': plan.pattern.id, 'Loop-Tick': context.tickId, 'Loop-Tokens': String(context.tokens) },
    author: plan.delivery.author,
  });
  if (!committed.ok) {
    await ports.workspace.keep(handle, committed.message);
    return { kind: 'failed', phase: 'commit', message: committed.message, retryable: committed.retryable };
  }
  context.step('commit', `committed ${committed.commit.sha.slice(0, 12)} on ${committed.commit.branch}`);

  let delivery = null;
  if (ports.delivery) {
    const delivered = await ports.delivery.deliver({
      handle,
      commit: committed.commit,
      patternId: plan.pattern.id,
      itemKey: item.key,
      dedupeKey: `${plan.pattern.id}:${item.key}`,
      tickId: context.tickId,
      title: pullRequestTitle(context, facts),
      body: pullRequestBody(context, facts),
      merge,
    });
    if (!delivered.ok) {
      context.step('deliver', `delivery failed: ${delivered.message}`);
      if (delivered.reason === 'conflict') {
        // The base moved under us and the rebase conflicts: a human resolves it; the commit stays on its branch.
        await ports.workspace.keep(handle, delivered.message);
        await recordAttempt('noop', 'delivery: rebase conflict');
        const reason = `The base branch moved and rebasing conflicts: ${delivered.message}`;
        context.step('escalate', reason);
        return { kind: 'escalated', item, reason, changes: changes.files, verification, gate, attempt };
      }
      // The change is verified and committed: a failure the delivery recorded waits in the inbox for a retry (never a new agent run).
      const recorded = delivered.detail?.['recorded'] === 'failed';
      const stranded = recorded ? { item, commit: committed.commit, worktree: handle.id, reason: delivered.message } : undefined;
      return { kind: 'failed', phase: 'deliver', message: `verified, delivery failed: ${delivered.message}`, retryable: delivered.retryable, ...(stranded ? { stranded } : {}) };
    }
    const { ok: _ok, ...record } = delivered;
    delivery = record;
    context.step('deliver', deliveryNote(record));
  }
  await recordAttempt('success');
  return { kind: 'proposed', item, changes: changes.files, verification, gate, commit: committed.commit, delivery, attempt };
}

function deliveryNote(record: DeliveryRecord): string {
  switch (record.kind) {
    case 'local':
      return `delivery: branch ${record.branch} kept locally (no push)`;
    case 'pushed':
      return `delivery: pushed ${record.branch}`;
    case 'pull-request':
      return `delivery: pull request ${record.url ?? record.branch}`;
    case 'merged':
      return `delivery: merged ${record.url ?? record.branch}`;
    case 'duplicate':
      return `delivery: already delivered for this item${record.url ? ` (${record.url})` : ''}; nothing pushed or opened again`;
  }
}
