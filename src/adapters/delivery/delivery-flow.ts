/**
 * The delivery protocol both `GitDelivery` and `MemoryDelivery` run, over
 * their own I/O (`DeliveryIo`): reserve the dedupe key in the ledger, push,
 * open the pull request, record what exists.
 *
 * A record still `pending` is one of two things:
 * - younger than the lease timeout: another process may be pushing right now
 *   → `in-progress` (a retryable failure: nothing is reported delivered);
 * - older: its process died between recording and finishing. It is claimed
 *   (its time refreshed under the ledger lock, so one reconciler wins) and
 *   reconciled against the remote: a pull request for its branch → recorded
 *   and answered `duplicate`; its branch on the remote → recorded `pushed`,
 *   or in pull-request mode the missing pull request is opened; nothing on the
 *   remote → the delivery is retried with this request's commit (the crashed
 *   attempt never reached anyone). A remote that cannot be asked is a
 *   failure: unknown is never delivered.
 *
 * A delivery that fails after its key was reserved (push refused, remote
 * unreachable, GitHub refusing the pull request, the pull-request cap) is
 * recorded `failed` with its reason and what a retry needs (worktree, base,
 * title, body): the verified commit is never silently dropped. A `failed`
 * record is reconciled at once by the next delivery of its key — a pull
 * request GitHub did open after all is found, never opened twice.
 */
import type { Clock, DeliveryFailure, DeliveryRequest, DeliveryResult } from '../../core/ports/index.js';
import {
  existingDeliveryState,
  findDelivery,
  inProgressMessage,
  pullRequestCapReason,
  recordedPullRequests,
  removeDelivery,
  sameReservation,
  setDelivery,
  type DeliveryEntry,
  type DeliveryLedger,
} from '../../core/workspace/delivery-ledger.js';
import type { GitHubClient } from './delivery-github-types.js';

/**
 * Where the dedupe ledger lives when not in deliveries.json (the fleet
 * store): a read-modify-write under the store's own lock; a ledger that
 * cannot be read throws `STATE_FAILED`.
 */
export interface DeliveryLedgerStore {
  update<T>(change: (ledger: DeliveryLedger) => { ledger: DeliveryLedger; result: T }): Promise<T>;
}

/** Called after the dedupe key is recorded and before the push (fault injection: a throw here is a crash mid-delivery). */
export type BeforePushHook = (branch: string) => Promise<void> | void;

export interface DeliverySettings {
  mode: 'push' | 'pull-request';
  draft: boolean;
  maxOpenPullRequests: number;
  maxPullRequestsPerHour: number;
  branchPrefix: string;
}

/** The I/O one delivery needs; everything else is decided here. */
export interface DeliveryIo {
  settings: DeliverySettings;
  clock: Clock;
  /** A `pending` record younger than this may belong to a live process. */
  pendingTimeoutMs: number;
  /** Required in pull-request mode. */
  github: GitHubClient | null;
  /** Base branch pull requests target. */
  baseBranch: string;
  /** Read-modify-write of the ledger under its lock; throws `STATE_FAILED` when it is corrupt. */
  updateLedger<T>(change: (ledger: DeliveryLedger) => { ledger: DeliveryLedger; result: T }): Promise<T>;
  /** Whether `branch` exists on the remote, or a failure when the remote cannot be asked. */
  remoteBranch(branch: string): Promise<{ ok: true; exists: boolean } | DeliveryFailure>;
  /** Rebases onto a moved base if needed and pushes the request's branch, never forcing. */
  push(request: DeliveryRequest): Promise<{ ok: true } | DeliveryFailure>;
  beforePush?: BeforePushHook;
  /** Applied to what the ledger keeps of a failure (its reason quotes git/gh output). */
  redact?: (text: string) => string;
}

const failure = (reason: DeliveryFailure['reason'], message: string, detail: Record<string, unknown> = {}, retryable = false): DeliveryFailure => ({ ok: false, reason, message, retryable, detail });

type Step = { kind: 'answer'; result: DeliveryResult } | { kind: 'reserved'; entry: DeliveryEntry } | { kind: 'stale'; entry: DeliveryEntry };

/** Runs one delivery in push or pull-request mode. */
export async function deliverThroughLedger(io: DeliveryIo, request: DeliveryRequest): Promise<DeliveryResult> {
  const openCount = io.settings.mode === 'pull-request' && io.github ? await io.github.countOpen(io.settings.branchPrefix) : null;
  let replacing: DeliveryEntry | null = null;
  // Two rounds at most: a stale record reconciled to "nothing arrived" is replaced by this delivery once.
  for (let round = 0; round < 2; round += 1) {
    const step = await reserve(io, request, openCount, replacing);
    if (step.kind === 'answer') return step.result;
    if (step.kind === 'reserved') return pushAndOpen(io, request, step.entry);
    const reconciled = await reconcile(io, request, step.entry);
    if (reconciled.kind === 'answer') return reconciled.result;
    replacing = reconciled.entry;
  }
  return failure('in-progress', `The delivery record for ${request.dedupeKey} kept changing while it was reconciled; another process is delivering it. Nothing was pushed.`, {}, true);
}

/** Under the ledger lock: answer from an existing record, or reserve the key for this request. */
function reserve(io: DeliveryIo, request: DeliveryRequest, openCount: number | null, replacing: DeliveryEntry | null): Promise<Step> {
  return io.updateLedger<Step>((ledger) => {
    const now = io.clock.now();
    const existing = findDelivery(ledger, request.dedupeKey);
    if (existing && !(replacing && existing.kind === 'pending' && sameReservation(existing, replacing))) {
      const state = existingDeliveryState(existing, now, io.pendingTimeoutMs);
      if (state === 'delivered') return { ledger, result: { kind: 'answer', result: { ok: true, kind: 'duplicate', branch: existing.branch, ...(existing.url ? { url: existing.url } : {}) } } };
      if (state === 'in-progress') return { ledger, result: { kind: 'answer', result: failure('in-progress', inProgressMessage(existing, now, io.pendingTimeoutMs), { branch: existing.branch, since: existing.at }, true) } };
      // Claim the stale (or failed) record: a refreshed pending time makes every other reconciler answer in-progress.
      const claimed: DeliveryEntry = { ...existing, kind: 'pending', at: new Date(now).toISOString() };
      return { ledger: setDelivery(ledger, claimed), result: { kind: 'stale', entry: claimed } };
    }
    if (io.settings.mode === 'pull-request') {
      const open = openCount ?? recordedPullRequests(ledger, request.patternId, now - 7 * 86_400_000);
      const capped = pullRequestCapReason(ledger, request.patternId, open, now, io.settings);
      if (capped) {
        const message = `Not opening another pull request: ${capped} To fix: merge or close the open loop pull requests, or raise delivery.maxOpenPullRequests / maxPullRequestsPerHour.`;
        const held = failedEntry(pendingEntry(request, now), request, message, now, io.redact);
        return { ledger: setDelivery(ledger, held), result: { kind: 'answer', result: failure('rate-limited', message, { open }, true) } };
      }
    }
    const entry = pendingEntry(request, now);
    return { ledger: setDelivery(ledger, entry), result: { kind: 'reserved', entry } };
  });
}

/** The `pending` reservation of `request`'s dedupe key, taken at `now`. */
function pendingEntry(request: DeliveryRequest, now: number): DeliveryEntry {
  return { key: request.dedupeKey, pattern: request.patternId, itemKey: request.itemKey, branch: request.handle.branch, kind: 'pending', commit: request.commit.sha, at: new Date(now).toISOString() };
}

/** The `failed` record of `entry`: its reason, and what a retry needs to deliver exactly this commit again. */
function failedEntry(entry: DeliveryEntry, request: DeliveryRequest, reason: string, now: number, redact: (text: string) => string = (text) => text): DeliveryEntry {
  const { handle } = request;
  return {
    ...entry,
    kind: 'failed',
    reason: redact(reason),
    failedAt: new Date(now).toISOString(),
    retry: { worktree: handle.id, path: handle.path, baseCommit: handle.baseCommit, title: request.title, body: request.body, ...((request.tickId ?? entry.retry?.tickId) ? { tickId: request.tickId ?? entry.retry?.tickId } : {}) },
  };
}

/**
 * Records that the delivery reserved as `reservation` failed, unless another
 * process has since replaced the record. Returns the failure, marked
 * `recorded: 'failed'` when the record now says so.
 */
async function recordFailure(io: DeliveryIo, request: DeliveryRequest, reservation: DeliveryEntry, result: DeliveryFailure): Promise<DeliveryFailure> {
  const recorded = await io.updateLedger((ledger) => {
    const ours = sameReservation(findDelivery(ledger, reservation.key), reservation);
    return { ledger: ours ? setDelivery(ledger, failedEntry(reservation, request, result.message, io.clock.now(), io.redact)) : ledger, result: ours };
  });
  return recorded ? { ...result, detail: { ...result.detail, recorded: 'failed', branch: reservation.branch } } : result;
}

/** Asks the remote what became of a claimed stale or failed record; `retry` means nothing arrived. */
async function reconcile(io: DeliveryIo, request: DeliveryRequest, entry: DeliveryEntry): Promise<{ kind: 'answer'; result: DeliveryResult } | { kind: 'retry'; entry: DeliveryEntry }> {
  const unknown = async (message: string, retryable: boolean): Promise<{ kind: 'answer'; result: DeliveryResult }> => {
    const result = failure('api', `A delivery of ${entry.key} (branch ${entry.branch}) did not finish, and whether it reached the remote is unknown: ${message} Nothing was pushed or reported delivered. To fix: check access to the remote; the next delivery of this item reconciles again.`, { branch: entry.branch }, retryable);
    // A claimed failed record of this very commit stays failed (still listed, still retried); a crashed one keeps its claim.
    const same = entry.retry !== undefined && entry.commit === request.commit.sha && entry.branch === request.handle.branch;
    return { kind: 'answer', result: same ? await recordFailure(io, request, entry, result) : result };
  };
  const remote = await io.remoteBranch(entry.branch);
  if (!remote.ok) return unknown(remote.message, remote.retryable);
  if (io.settings.mode === 'pull-request') {
    if (!io.github) return unknown('GitHub cannot be asked.', false);
    const found = await io.github.findPullRequest(entry.branch);
    if (!found.ok) return unknown(found.message, found.retryable);
    if (found.pullRequest) {
      const kind = found.pullRequest.state === 'merged' ? 'merged' : 'pull-request';
      await record(io, entry, { ...entry, kind, url: found.pullRequest.url });
      return { kind: 'answer', result: { ok: true, kind: 'duplicate', branch: entry.branch, url: found.pullRequest.url } };
    }
    // Pushed, but the crash came before the pull request: open it now (never merged unasked — the gate ran for another commit).
    if (remote.exists) return { kind: 'answer', result: await openAndRecord(io, { ...request, merge: false }, entry) };
  } else if (remote.exists) {
    await record(io, entry, { ...entry, kind: 'pushed' });
    return { kind: 'answer', result: { ok: true, kind: 'duplicate', branch: entry.branch } };
  }
  return { kind: 'retry', entry };
}

async function pushAndOpen(io: DeliveryIo, request: DeliveryRequest, entry: DeliveryEntry): Promise<DeliveryResult> {
  await io.beforePush?.(entry.branch);
  const pushed = await io.push(request);
  if (!pushed.ok) {
    // A rebase conflict is a human's (the change is escalated): free the key. Anything else is a verified commit that waits for a retry.
    if (pushed.reason === 'conflict') {
      await io.updateLedger((ledger) => ({ ledger: sameReservation(findDelivery(ledger, entry.key), entry) ? removeDelivery(ledger, entry.key) : ledger, result: null }));
      return pushed;
    }
    return recordFailure(io, request, entry, pushed);
  }
  if (io.settings.mode === 'push') {
    await record(io, entry, { ...entry, kind: 'pushed' });
    return { ok: true, kind: 'pushed', branch: entry.branch };
  }
  return openAndRecord(io, request, entry);
}

/**
 * Opens the pull request for the reserved branch. A refusal leaves the
 * record `pending` (the branch is on the remote): reconciliation opens it
 * once the record is stale.
 */
async function openAndRecord(io: DeliveryIo, request: DeliveryRequest, entry: DeliveryEntry): Promise<DeliveryResult> {
  if (!io.github) return recordFailure(io, request, entry, failure('api', 'Cannot open a pull request: no GitHub client.'));
  const created = await io.github.create({ head: entry.branch, base: io.baseBranch, title: request.title, body: request.body, draft: io.settings.draft });
  // The branch is on the remote; the record says failed, so a retry (or the next tick) asks GitHub first and opens it once.
  if (!created.ok) return recordFailure(io, request, entry, created);
  await record(io, entry, { ...entry, kind: 'pull-request', url: created.url });
  if (!request.merge) return { ok: true, kind: 'pull-request', branch: entry.branch, url: created.url };
  const merged = await io.github.merge(created.url, created.number);
  if (!merged.ok) return { ...merged, message: `Opened ${created.url}, but ${merged.message}` };
  await record(io, entry, { ...entry, kind: 'merged', url: created.url });
  return { ok: true, kind: 'merged', branch: entry.branch, url: created.url };
}

/** Records what exists for `reservation`, unless another process has since replaced the record. */
async function record(io: DeliveryIo, reservation: DeliveryEntry, delivered: DeliveryEntry): Promise<void> {
  await io.updateLedger((ledger) => {
    const current = findDelivery(ledger, reservation.key);
    const ours = current === undefined || sameReservation(current, reservation);
    const { reason: _reason, failedAt: _failedAt, retry: _retry, ...kept } = delivered;
    return { ledger: ours ? setDelivery(ledger, { ...kept, at: reservation.at }) : ledger, result: null };
  });
}
