/**
 * Human approval of escalated changes: list what waits, approve one (re-run
 * the gate on its current diff, commit, deliver as the plan allows) or reject
 * one (discard it). Both record the decision in the state file and one
 * run-log line. Returns data; the CLI renders it.
 */
import { basename, resolve } from 'node:path';
import type { Clock, DeliveryRecord, Failure, WorkspaceHandle } from '../core/ports/index.js';
import { changedPaths } from '../core/ports/index.js';
import { LoopRuntimeError } from '../core/errors.js';
import { checkGate, type GateDecision } from '../core/gate/check-gate.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import { appendRunLogLine } from '../core/state/run-log.js';
import { isoSecond } from '../core/state/state-blocks.js';
import { updateStateFile } from '../core/state/state-file.js';
import { markWaitingDecided } from '../core/workspace/human-decision.js';
import { findEscalated, type WorktreeEntry } from '../core/workspace/worktree-manifest.js';
import { updateFileAtomically } from '../adapters/fs/atomic-file.js';
import { afterRehearsal, beforeTickWrites } from '../adapters/rehearsal/rehearsal-preimages.js';
import { isRehearsalBranch, REHEARSAL_BACKEND } from '../core/outcomes/rehearsal-backend.js';
import { git } from '../adapters/git/git-run.js';
import { worktreeStoreFor } from '../composition/project-adapters.js';
import { resolvePlan, type LoadedProject } from '../project/load-project.js';
import type { DeliveryLedgerStore } from '../adapters/delivery/delivery-flow.js';
import type { OutcomeStore } from '../adapters/outcomes/outcome-store.js';
import { gitDeliveryFor, gitWorkspaceFor, redactorFor, type GitWiring, type Redact } from '../composition/wiring.js';

export interface InboxItem {
  /** `escalated`: a change waiting for approve/reject; `delivery-failed`: a verified commit waiting for `deliver` (a retry). */
  kind: 'escalated' | 'delivery-failed';
  id: string;
  pattern: string;
  itemKey: string | null;
  title: string | null;
  branch: string;
  /** The verified commit (delivery-failed items). */
  commit: string | null;
  path: string;
  reason: string | null;
  createdAt: string;
  ageMs: number;
  /** A fleet's change: the worker whose disk keeps it (its wait is in the fleet's Postgres). */
  keptBy?: string;
}

/**
 * What waits for a human, oldest first: escalated changes, then verified
 * commits whose delivery failed ("verified, delivery failed: <reason>").
 */
export async function listInbox(root: string, now: number, worktreesDir: string | null = null, deliveryLedger?: DeliveryLedgerStore): Promise<InboxItem[]> {
  const waiting = await worktreeStoreFor(root, worktreesDir).waiting();
  const { listStranded, strandedAgeMs } = await import('./deliver.js');
  const stranded: InboxItem[] = (await listStranded(root, undefined, deliveryLedger)).map((item) => ({
    kind: 'delivery-failed',
    id: item.id,
    pattern: item.pattern,
    itemKey: item.itemKey,
    title: item.title,
    branch: item.branch,
    commit: item.commit,
    path: item.path ?? root,
    reason: item.reason,
    createdAt: item.failedAt,
    ageMs: strandedAgeMs(item, now),
  }));
  const escalated: InboxItem[] = waiting
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((entry) => ({
      kind: 'escalated',
      id: entry.id,
      pattern: entry.pattern,
      itemKey: entry.itemKey ?? null,
      title: entry.itemTitle ?? null,
      branch: entry.branch,
      path: resolve(root, entry.path),
      commit: null,
      reason: entry.reason ?? null,
      createdAt: entry.createdAt,
      ageMs: Math.max(0, now - (Date.parse(entry.createdAt) || now)),
    }));
  return [...escalated, ...stranded];
}

export interface DecisionOptions {
  clock: Clock;
  env: Record<string, string | undefined>;
  /** The fleet's delivery ledger (Postgres store); default the file beside the repository. */
  deliveryLedger?: DeliveryLedgerStore | undefined;
  /** The project's shared outcome lines (`ProjectStores.outcomes()`). */
  outcomes: OutcomeStore;
}

export type ApproveResult =
  | { status: 'needs-confirmation'; id: string; pattern: string; branch: string; paths: string[]; gate: GateDecision }
  | {
      status: 'applied';
      id: string;
      pattern: string;
      branch: string;
      paths: string[];
      gate: GateDecision;
      commit: string;
      delivery: DeliveryRecord | Failure;
    };

export interface RejectResult {
  status: 'rejected';
  id: string;
  pattern: string;
  branch: string;
}

/** The escalated change under `idOrItemKey` with its plan and workspace handle; USAGE when nothing waits under it. */
export async function findWaiting(project: LoadedProject, idOrItemKey: string): Promise<{ entry: WorktreeEntry; plan: ExecutionPlan; handle: WorkspaceHandle }> {
  const manifest = await worktreeStoreFor(project.root, project.settings?.worktreesDir).read();
  const entry = findEscalated(manifest, idOrItemKey);
  if (!entry) {
    throw new LoopRuntimeError('USAGE', `Nothing waits for a decision under "${idOrItemKey}".`, {
      fix: 'run `loop-runtime inbox` to see the ids of escalated changes.',
    });
  }
  const resolved = await resolvePlan(project, entry.pattern);
  if (!resolved.ok) {
    throw new LoopRuntimeError('PATTERN_NOT_FOUND', `The escalated change ${entry.id} belongs to loop "${entry.pattern}", which is not configured any more.`, {
      fix: `restore the loop, or remove ${entry.path} and its manifest entry by hand.`,
    });
  }
  const path = resolve(project.root, entry.path);
  const baseCommit = entry.baseCommit ?? (await git(path).raw(['merge-base', 'HEAD', entry.baseBranch ?? 'HEAD'])).trim();
  const handle: WorkspaceHandle = { id: entry.id, path, branch: entry.branch, baseCommit, itemKey: entry.itemKey ?? entry.id };
  return { entry, plan: resolved.plan, handle };
}

/**
 * Applies an escalated change after re-running the gate on its current diff.
 * When the gate still escalates, nothing happens unless `yes` is set: the
 * human has then seen the gate's reason and decided.
 */
export async function approveChange(project: LoadedProject, idOrItemKey: string, options: DecisionOptions & { yes: boolean }): Promise<ApproveResult> {
  const { entry, plan, handle } = await findWaiting(project, idOrItemKey);
  const wiring = wiringFor(project, options);
  const workspace = gitWorkspaceFor(wiring, entry.pattern, entry.baseBranch ?? null);
  const diff = await workspace.changes(handle);
  if (!diff.ok) throw new LoopRuntimeError('WORKSPACE_FAILED', `Could not read the kept change ${entry.id}: ${diff.message}`, { fix: `check ${handle.path}, or reject the change.` });
  const paths = changedPaths(diff.changes);
  if (paths.length === 0) {
    throw new LoopRuntimeError('WORKSPACE_FAILED', `The kept change ${entry.id} has no changes against its base any more.`, { fix: `run \`loop-runtime reject ${entry.id}\` to clear it.` });
  }
  const gate = checkGate(plan.gate, 'commit', paths);
  const base = { id: entry.id, pattern: entry.pattern, branch: entry.branch, paths, gate };
  if (!gate.allowed && !options.yes) return { status: 'needs-confirmation', ...base };

  const title = entry.itemTitle ?? entry.itemKey ?? entry.id;
  const committed = await workspace.commit(handle, {
    message: [`${entry.pattern}: ${title}`.slice(0, 72), '', `Why: ${entry.itemKey ?? entry.id} — ${title}`, `Escalated because: ${entry.reason ?? 'unknown'}`, 'Applied after human approval (loop-runtime approve).'].join('\n'),
    trailers: { 'Loop-Pattern': entry.pattern, ...(entry.tickId ? { 'Loop-Tick': entry.tickId } : {}), 'Loop-Approved-By': 'human' },
    author: plan.delivery.author,
  });
  if (!committed.ok) throw new LoopRuntimeError('WORKSPACE_FAILED', `Could not commit the approved change ${entry.id}: ${committed.message}`, { fix: `check ${handle.path}.` });

  const delivery = gitDeliveryFor(wiring, plan);
  const delivered = await delivery.deliver({
    handle,
    commit: committed.commit,
    patternId: entry.pattern,
    itemKey: entry.itemKey ?? entry.id,
    dedupeKey: `${entry.pattern}:${entry.itemKey ?? entry.id}`,
    title: `${plan.pattern.name}: ${title}`,
    body: [
      `Opened by loop-runtime (${plan.pattern.name}) after a human approved an escalated change.`,
      '',
      `**Item:** ${entry.itemKey ?? entry.id} — ${title}`,
      `**Escalated because:** ${entry.reason ?? 'unknown'}`,
      `**Gate on the approved diff:** ${gate.allowed ? 'allowed' : `${gate.trigger} — ${gate.reason}`}`,
      '',
      `**Changed paths:** ${paths.map((path) => `\`${path}\``).join(', ')}`,
    ].join('\n'),
    merge: false,
  });
  const record: DeliveryRecord | Failure = delivered.ok ? (({ ok: _ok, ...rest }) => rest)(delivered) : delivered;
  const summary = delivered.ok ? `${delivered.kind}${delivered.url ? ` ${delivered.url}` : ''}` : `delivery failed: ${delivered.message}`;
  await recordDecision(project.root, plan, entry, wiring.redact, 'approved', options.clock.now(), `approved by a human; committed ${committed.commit.sha.slice(0, 12)} on ${entry.branch} (${summary})`);
  return { status: 'applied', ...base, commit: committed.commit.sha, delivery: record };
}

/** Discards an escalated change (worktree and branch) and records the decision. */
export async function rejectChange(project: LoadedProject, idOrItemKey: string, options: DecisionOptions): Promise<RejectResult> {
  if (!findEscalated(await worktreeStoreFor(project.root, project.settings?.worktreesDir ?? null).read(), idOrItemKey)) {
    // Not escalated: maybe a verified change whose delivery failed, which a human may drop too.
    const { rejectStranded } = await import('./deliver.js');
    const dropped = await rejectStranded(project, idOrItemKey, options);
    if (dropped) return { status: 'rejected', ...dropped };
  }
  const escalated = findEscalated(await worktreeStoreFor(project.root, project.settings?.worktreesDir ?? null).read(), idOrItemKey);
  if (!escalated) await findWaiting(project, idOrItemKey); // throws the "nothing waits" error
  // The same path as `discard`: the workspace's discard, the branch checked gone, the decision recorded.
  const { discardKeptChange } = await import('./discard-change.js');
  const { entry } = await discardKeptChange(project, escalated!.id, options, 'rejected');
  return { status: 'rejected', id: entry.id, pattern: entry.pattern, branch: entry.branch };
}

function wiringFor(project: LoadedProject, options: DecisionOptions): GitWiring & { outcomes: OutcomeStore } {
  return { root: project.root, clock: options.clock, env: options.env, redact: redactorFor(options.env, project.root), worktreesDir: project.settings?.worktreesDir ?? null, deliveryLedger: options.deliveryLedger, outcomes: options.outcomes };
}

/** Records the decision in the state file and the run log; `line` quotes git/gh output, so it is redacted here. */
async function recordDecision(root: string, plan: ExecutionPlan, entry: WorktreeEntry, redact: Redact, decision: 'approved' | 'rejected', now: number, unredacted: string): Promise<void> {
  await recordOutOfTick(root, plan, { pattern: entry.pattern, itemKey: entry.itemKey ?? entry.id, ...(entry.tickId ? { tickId: entry.tickId } : {}) }, redact, now, unredacted, {
    kind: `human-${decision}`,
    outcome: decision === 'approved' ? 'fix-proposed' : 'no-op',
    actionsTaken: decision === 'approved' ? 1 : 0,
    decided: true,
    rehearsal: isRehearsalBranch(entry.branch, entry.pattern),
  });
}

/** What a decision or a retry outside a tick writes: the run-log line's kind and outcome, and whether the waiting item is decided. */
export interface OutOfTickRecord {
  kind: string;
  outcome: 'fix-proposed' | 'no-op' | 'failed';
  actionsTaken: number;
  /** Tick the item's waiting line (`- [x]` + `Decided:`) in the state file. */
  decided: boolean;
  /** Write no run-log line (a retry that failed again changes nothing a schedule should see). */
  noRunLogLine?: boolean;
  /**
   * The decision is on a rehearsal's change (`isRehearsalBranch`): its writes are part of the rehearsal, tagged
   * `"backend":"mock"` and kept in the rehearsal's pre-images, so `reset --mock` takes them back too.
   */
  rehearsal?: boolean;
}

/**
 * Records something done to a loop's item outside a tick (a human decision,
 * a delivery retry) in the state file (a note; the waiting item ticked when
 * `decided`) and one run-log line. `unredacted` quotes git/gh output, so it
 * is redacted here.
 */
export async function recordOutOfTick(
  root: string,
  plan: ExecutionPlan,
  target: { pattern: string; itemKey: string; tickId?: string },
  redact: Redact,
  now: number,
  unredacted: string,
  record: OutOfTickRecord,
): Promise<void> {
  const line = redact(unredacted);
  const project = basename(resolve(root));
  const files = record.noRunLogLine ? [plan.files.state] : [plan.files.state, plan.files.runLog];
  if (record.rehearsal) await beforeTickWrites(root, files, true);
  await updateFileAtomically(resolve(root, plan.files.state), (old) => {
    const marked = old === null || !record.decided ? old : markWaitingDecided(old, target.pattern, target.itemKey, `${isoSecond(now)} ${line}`).text;
    return updateStateFile(marked, { note: { patternId: target.pattern, at: now, line: `${target.itemKey}: ${line}` } }, { project });
  });
  if (!record.noRunLogLine) await appendOutOfTickLine(root, plan, target, now, project, record);
  if (record.rehearsal) await afterRehearsal(root, files);
}

async function appendOutOfTickLine(root: string, plan: ExecutionPlan, target: { pattern: string; tickId?: string }, now: number, project: string, record: OutOfTickRecord): Promise<void> {
  await updateFileAtomically(resolve(root, plan.files.runLog), (old) =>
    appendRunLogLine(
      old,
      {
        run_id: isoSecond(now),
        pattern: target.pattern,
        duration_s: 0,
        items_found: 1,
        actions_taken: record.actionsTaken,
        escalations: 0,
        tokens_estimate: 0,
        outcome: record.outcome,
        ...(target.tickId ? { tick_id: target.tickId } : {}),
        level: plan.level,
        kind: record.kind,
        ...(record.rehearsal ? { backend: REHEARSAL_BACKEND } : {}),
      },
      { now, pruneDays: 30, project },
    ),
  );
}
