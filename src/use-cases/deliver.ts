/**
 * Verified work whose delivery failed: a tick committed a change the verifier
 * approved, and the push or the pull request failed (remote unreachable, no
 * credentials, GitHub refusing, the pull-request cap). The delivery ledger
 * holds it as `failed`; this lists it for the inbox and retries it — the
 * delivery of exactly that commit, never the agent — recording the result in
 * the state file and the run log. Returns data; the CLI renders it.
 */
import { isRehearsalBranch } from '../core/outcomes/rehearsal-backend.js';
import { resolve } from 'node:path';
import type { Clock, DeliveryRecord, DeliveryRequest, Failure } from '../core/ports/index.js';
import { LoopRuntimeError } from '../core/errors.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import { parseTimestamp, toIsoString } from '../core/time/utc-time.js';
import { failedDeliveries, findFailedDelivery, parseDeliveryLedger, type DeliveryEntry } from '../core/workspace/delivery-ledger.js';
import { readTextOrNull } from '../adapters/fs/atomic-file.js';
import type { DeliveryLedgerStore } from '../adapters/delivery/delivery-flow.js';
import type { OutcomeStore } from '../adapters/outcomes/outcome-store.js';
import { git } from '../adapters/git/git-run.js';
import { resolvePlan, type LoadedProject } from '../project/load-project.js';
import { recordOutOfTick } from './approval.js';
import { bareGitDelivery, gitDeliveryFor, gitWorkspaceFor, redactorFor } from '../composition/wiring.js';

/** The delivery ledger of a repository (`.loop-runtime/deliveries.json`). */
export const DELIVERY_LEDGER = '.loop-runtime/deliveries.json';

/** A verified commit waiting for its delivery, as the inbox lists it. */
export interface StrandedItem {
  /** The worktree id (what `loop-runtime deliver <id>` takes), else the dedupe key. */
  id: string;
  key: string;
  pattern: string;
  itemKey: string;
  title: string | null;
  branch: string;
  commit: string | null;
  path: string | null;
  /** "verified, delivery failed: <why>". */
  reason: string;
  failedAt: string;
  createdAt: string;
}

export interface RetryOptions {
  clock: Clock;
  env: Record<string, string | undefined>;
  /** The loop's shared delivery ledger (the fleet store's); the file beside the repository when absent. */
  deliveryLedger?: DeliveryLedgerStore | undefined;
  /** The project's shared outcome lines (`ProjectStores.outcomes()`): a retried delivery's proposal goes there. */
  outcomes: OutcomeStore;
}

export interface RetryResult {
  id: string;
  pattern: string;
  itemKey: string;
  branch: string;
  commit: string;
  delivery: DeliveryRecord | Failure;
}

async function readLedger(root: string, store?: DeliveryLedgerStore) {
  // The shared ledger is read under its own lock, changing nothing.
  if (store) return store.update((ledger) => ({ ledger, result: ledger }));
  const file = resolve(root, DELIVERY_LEDGER);
  return parseDeliveryLedger(await readTextOrNull(file), file);
}

function toStranded(root: string, entry: DeliveryEntry): StrandedItem {
  const title = entry.retry?.title ?? null;
  return {
    id: entry.retry?.worktree ?? entry.key,
    key: entry.key,
    pattern: entry.pattern,
    itemKey: entry.itemKey,
    title,
    branch: entry.branch,
    commit: entry.commit ?? null,
    path: entry.retry?.path ? resolve(root, entry.retry.path) : null,
    reason: `verified, delivery failed: ${entry.reason ?? 'unknown'}`,
    failedAt: entry.failedAt ?? entry.at,
    createdAt: entry.at,
  };
}

/**
 * Failed deliveries, oldest first (all loops, or one), from the fleet's
 * shared ledger when given, else the file. A corrupt ledger throws
 * `STATE_FAILED`.
 *
 * @example
 * ```ts
 * await listStranded('/repo'); // → [{ id: 'run-7-mhx3k2a0', reason: 'verified, delivery failed: Could not push …', … }]
 * ```
 */
export async function listStranded(root: string, patternId?: string, deliveryLedger?: DeliveryLedgerStore): Promise<StrandedItem[]> {
  return failedDeliveries(await readLedger(root, deliveryLedger), patternId).map((entry) => toStranded(root, entry));
}

/**
 * Retries the delivery of one failed, verified commit (by worktree id, dedupe
 * key or item key) through the loop's own delivery: the record is reconciled
 * against the remote first, so a pull request that was in fact opened is
 * found and never opened twice. Records the result; a failure stays listed.
 * USAGE when nothing failed under `id`.
 */
export async function retryDelivery(project: LoadedProject, id: string, options: RetryOptions): Promise<RetryResult> {
  const entry = findFailedDelivery(await readLedger(project.root, options.deliveryLedger), id);
  if (!entry) {
    throw new LoopRuntimeError('USAGE', `No failed delivery is recorded under "${id}".`, { fix: 'run `loop-runtime inbox` to see the ids of verified changes whose delivery failed.' });
  }
  const resolved = await resolvePlan(project, entry.pattern);
  if (!resolved.ok) {
    throw new LoopRuntimeError('PATTERN_NOT_FOUND', `The failed delivery ${entry.key} belongs to loop "${entry.pattern}", which is not configured any more.`, {
      fix: `restore the loop, or remove the record for ${entry.key} from ${DELIVERY_LEDGER} after checking the remote.`,
    });
  }
  return retryEntry(project, resolved.plan, entry, options);
}

/**
 * Retries every failed delivery of one loop (the cheap first step of its
 * next tick: no model call). Returns one line per retry for the run summary.
 */
export async function retryStrandedForLoop(project: LoadedProject, plan: ExecutionPlan, options: RetryOptions): Promise<string[]> {
  const notes: string[] = [];
  for (const entry of failedDeliveries(await readLedger(project.root, options.deliveryLedger), plan.pattern.id)) {
    let result: RetryResult;
    try {
      result = await retryEntry(project, plan, entry, options, { quietFailure: true });
    } catch (error) {
      notes.push(`delivery retry of ${entry.itemKey} skipped: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const delivery = result.delivery;
    notes.push(
      'ok' in delivery
        ? `delivery retry of ${entry.itemKey} (${entry.branch}) failed again: ${delivery.message}`
        : `delivery retry of ${entry.itemKey}: ${delivery.kind}${delivery.url ? ` ${delivery.url}` : ''} (${entry.branch})`,
    );
  }
  return notes;
}

/**
 * Drops a failed delivery a human does not want delivered (`reject <id>` on a
 * "verified, delivery failed" item): its worktree and local branch are
 * discarded and its record removed, so the loop may propose the item again.
 * A branch already pushed stays on the remote. Null when nothing failed
 * under `id`.
 */
export async function rejectStranded(project: LoadedProject, id: string, options: RetryOptions): Promise<{ id: string; pattern: string; branch: string } | null> {
  const entry = findFailedDelivery(await readLedger(project.root, options.deliveryLedger), id);
  if (!entry) return null;
  const resolved = await resolvePlan(project, entry.pattern);
  if (!resolved.ok) throw new LoopRuntimeError('PATTERN_NOT_FOUND', `The failed delivery ${entry.key} belongs to loop "${entry.pattern}", which is not configured any more.`, { fix: `remove the record for ${entry.key} from ${DELIVERY_LEDGER} by hand.` });
  const plan = resolved.plan;
  const redact = redactorFor(options.env, project.root);
  const wiring = { root: project.root, clock: options.clock, env: options.env, redact, worktreesDir: project.settings?.worktreesDir ?? null };
  const worktree = entry.retry?.worktree ?? entry.key;
  if (entry.retry) {
    const handle = { id: worktree, path: resolve(project.root, entry.retry.path), branch: entry.branch, baseCommit: entry.retry.baseCommit, itemKey: entry.itemKey };
    await gitWorkspaceFor(wiring, entry.pattern, plan.delivery.baseBranch).discard(handle);
  }
  await (await bareGitDelivery({ root: project.root, worktreesDir: project.settings?.worktreesDir ?? null, delivery: plan.delivery, clock: options.clock, env: options.env, ...(options.deliveryLedger ? { ledger: options.deliveryLedger } : {}) })).forgetFailed(entry.key);
  const target = { pattern: entry.pattern, itemKey: entry.itemKey, ...(entry.retry?.tickId ? { tickId: entry.retry.tickId } : {}) };
  await recordOutOfTick(project.root, plan, target, redact, options.clock.now(), `rejected by a human; the undelivered ${entry.branch} discarded`, { kind: 'human-rejected', outcome: 'no-op', actionsTaken: 0, decided: true, rehearsal: isRehearsalBranch(entry.branch, plan.pattern.id) });
  return { id: worktree, pattern: entry.pattern, branch: entry.branch };
}

async function retryEntry(project: LoadedProject, plan: ExecutionPlan, entry: DeliveryEntry, options: RetryOptions, how: { quietFailure?: boolean } = {}): Promise<RetryResult> {
  const root = project.root;
  const redact = redactorFor(options.env, project.root);
  const id = entry.retry?.worktree ?? entry.key;
  const commit = entry.commit ?? '';
  const retry = entry.retry;
  if (plan.delivery.mode === 'local') {
    throw new LoopRuntimeError('USAGE', `The failed delivery ${entry.key} cannot be retried: loop "${entry.pattern}" now keeps its branches local (delivery.mode: local).`, {
      fix: `set delivery.mode back to push or pull-request, or run \`loop-runtime reject ${id}\` to drop it (${entry.branch} stays a local branch until then).`,
    });
  }
  // Exactly the verified commit: its branch must still exist locally (it holds the commit the gate passed).
  const tip = (await git(root).tryRaw(['rev-parse', '--verify', '--quiet', `refs/heads/${entry.branch}^{commit}`]))?.trim() ?? '';
  if (!retry || !commit || !tip) {
    throw new LoopRuntimeError('WORKSPACE_FAILED', `The failed delivery ${entry.key} cannot be retried: ${!tip ? `its branch ${entry.branch} is gone` : 'the record lacks the commit or what a retry needs'}.`, {
      fix: `remove the record for ${entry.key} from ${DELIVERY_LEDGER} (after checking the remote); the loop may then propose the item again.`,
    });
  }
  const request: DeliveryRequest = {
    handle: { id, path: resolve(root, retry.path), branch: entry.branch, baseCommit: retry.baseCommit, itemKey: entry.itemKey },
    commit: { sha: commit, branch: entry.branch },
    patternId: entry.pattern,
    itemKey: entry.itemKey,
    dedupeKey: entry.key,
    title: retry.title,
    body: retry.body,
    // Never merged on a retry: the merge gate ran for the tick, and a human may have changed the branch since.
    merge: false,
    ...(retry.tickId ? { tickId: retry.tickId } : {}),
  };
  const delivered = await gitDeliveryFor({ root, clock: options.clock, env: options.env, redact, worktreesDir: project.settings?.worktreesDir ?? null, deliveryLedger: options.deliveryLedger, outcomes: options.outcomes }, plan).deliver(request);
  const delivery: DeliveryRecord | Failure = delivered.ok ? (({ ok: _ok, ...rest }) => rest)(delivered) : delivered;
  const target = { pattern: entry.pattern, itemKey: entry.itemKey, ...(retry.tickId ? { tickId: retry.tickId } : {}) };
  const now = options.clock.now();
  if (delivered.ok) {
    const what = `${delivered.kind}${delivered.url ? ` ${delivered.url}` : ''}`;
    await recordOutOfTick(root, plan, target, redact, now, `delivery retried: ${what} (${commit.slice(0, 12)} on ${entry.branch})`, { kind: 'delivery-retried', outcome: 'fix-proposed', actionsTaken: 1, decided: true });
    // A retried delivery is the tick's proposal arriving late: followed like any other (a duplicate is not new).
    if (delivered.kind !== 'duplicate') await recordRetriedProposal(root, plan, entry, delivered, now, options.outcomes).catch(() => undefined);
  } else if (!how.quietFailure) {
    await recordOutOfTick(root, plan, target, redact, now, `delivery retry failed: ${delivered.message}`, { kind: 'delivery-failed', outcome: 'failed', actionsTaken: 0, decided: false, noRunLogLine: true });
  }
  return { id, pattern: entry.pattern, itemKey: entry.itemKey, branch: entry.branch, commit, delivery: redactFailure(delivery, redact) };
}

async function recordRetriedProposal(root: string, plan: ExecutionPlan, entry: DeliveryEntry, delivered: DeliveryRecord, now: number, outcomes: OutcomeStore): Promise<void> {
  const { resolveBase } = await import('../adapters/workspace/git-resolve-base.js');
  const base = plan.delivery.baseBranch ?? (await resolveBase(root, null).catch(() => ({ branch: null }))).branch;
  await outcomes.append([
    {
      type: 'proposal',
      at: toIsoString(now),
      pattern: entry.pattern,
      tickId: entry.retry?.tickId ?? null,
      itemKey: entry.itemKey,
      commit: entry.commit ?? '',
      branch: entry.branch,
      base,
      delivery: delivered.kind === 'pushed' || delivered.kind === 'pull-request' || delivered.kind === 'merged' ? delivered.kind : 'local',
      ...(delivered.url ? { url: delivered.url } : {}),
      level: plan.level,
      tokens: 0,
      source: 'tick',
    },
  ]);
}

function redactFailure(delivery: DeliveryRecord | Failure, redact: (text: string) => string): DeliveryRecord | Failure {
  return 'ok' in delivery ? { ...delivery, message: redact(delivery.message) } : delivery;
}

/** Age in ms of a stranded item at `now`. */
export function strandedAgeMs(item: StrandedItem, now: number): number {
  return Math.max(0, now - (parseTimestamp(item.failedAt) || now));
}
