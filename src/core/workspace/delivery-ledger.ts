/**
 * `.loop-runtime/deliveries.json`: one record per dedupe key (pattern + item)
 * that is being or was pushed or opened as a pull request, the pull-request
 * caps checked against it, and what an existing record means for a new
 * delivery of the same item. Pure: no I/O.
 *
 * Fail closed: a ledger that is not valid JSON or not the expected shape is an
 * error, never an empty ledger (an empty ledger would switch dedupe off and
 * push every item again).
 */
import * as z from 'zod';
import { LoopRuntimeError } from '../errors.js';
import { parseTimestamp } from '../time/utc-time.js';

export const DeliveryEntrySchema = z.looseObject({
  key: z.string().min(1),
  pattern: z.string(),
  itemKey: z.string(),
  branch: z.string().min(1),
  /**
   * `pending` is written before the push, so a crash mid-delivery never leads
   * to a second push or PR; a `pending` older than the lease timeout is
   * reconciled against the remote (see `existingDeliveryState`). `failed`:
   * a verified commit whose push or pull request failed — listed in the inbox,
   * retried by `loop-runtime deliver <id>` and by the loop's next tick, and
   * reconciled against the remote before anything is pushed again.
   */
  kind: z.enum(['pending', 'pushed', 'pull-request', 'merged', 'failed']),
  url: z.string().optional(),
  commit: z.string().optional(),
  /** ISO time the record was first written (or the pending reservation was taken). */
  at: z.iso.datetime({ offset: true }),
  /** `failed`: why the last delivery failed (redacted) and when. */
  reason: z.string().optional(),
  failedAt: z.iso.datetime({ offset: true }).optional(),
  /** `failed`: what a retry needs to deliver exactly this commit again (never the agent again). */
  retry: z
    .looseObject({
      worktree: z.string().min(1),
      path: z.string(),
      baseCommit: z.string(),
      title: z.string(),
      body: z.string(),
      tickId: z.string().optional(),
    })
    .optional(),
});
export type DeliveryEntry = z.infer<typeof DeliveryEntrySchema>;

export const DeliveryLedgerSchema = z.looseObject({
  version: z.literal(1),
  deliveries: z.array(DeliveryEntrySchema),
});

export interface DeliveryLedger {
  version: 1;
  deliveries: DeliveryEntry[];
}

/**
 * Parses deliveries.json. Missing or empty → an empty ledger. Anything else
 * that is not a valid ledger throws `STATE_FAILED` naming `file`, the first
 * bad key and the fix.
 *
 * @example
 * ```ts
 * parseDeliveryLedger(null, '.loop-runtime/deliveries.json'); // → { version: 1, deliveries: [] }
 * parseDeliveryLedger('{', '.loop-runtime/deliveries.json');  // throws LoopRuntimeError STATE_FAILED
 * ```
 */
export function parseDeliveryLedger(text: string | null, file: string): DeliveryLedger {
  if (text === null || !text.trim()) return { version: 1, deliveries: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw corruptLedger(file, `it is not valid JSON (${(error as Error).message})`, error);
  }
  const parsed = DeliveryLedgerSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('').replace(/^\./, '');
    throw corruptLedger(file, `${where || 'the top level'}: ${issue.message}`, parsed.error);
  }
  return { version: 1, deliveries: parsed.data.deliveries };
}

function corruptLedger(file: string, why: string, cause: unknown): LoopRuntimeError {
  return new LoopRuntimeError(
    'STATE_FAILED',
    `The delivery ledger ${file} cannot be read: ${why}. Without it loop-runtime cannot tell which items it already pushed, so it delivers nothing rather than push or open a pull request twice.`,
    {
      cause,
      fix: `move ${file} aside (or delete it), after checking the remote for loop branches and open loop pull requests — every item not in the ledger may be delivered again.`,
    },
  );
}

export function formatDeliveryLedger(ledger: DeliveryLedger): string {
  return `${JSON.stringify(ledger, null, 2)}\n`;
}

export function findDelivery(ledger: DeliveryLedger, key: string): DeliveryEntry | undefined {
  return ledger.deliveries.find((entry) => entry.key === key);
}

/** Sets (adds or replaces) the record for `entry.key`. */
export function setDelivery(ledger: DeliveryLedger, entry: DeliveryEntry): DeliveryLedger {
  return { ...ledger, deliveries: [...ledger.deliveries.filter((existing) => existing.key !== entry.key), entry] };
}

export function removeDelivery(ledger: DeliveryLedger, key: string): DeliveryLedger {
  return { ...ledger, deliveries: ledger.deliveries.filter((entry) => entry.key !== key) };
}

/**
 * True when `current` comes from the same reservation as `seen` (same key,
 * time, branch and commit; the kind may have moved on), so acting on what was
 * learnt about `seen` is safe. A claimed or replaced record has a new time.
 */
export function sameReservation(current: DeliveryEntry | undefined, seen: DeliveryEntry): boolean {
  return current !== undefined && current.key === seen.key && current.at === seen.at && current.branch === seen.branch && current.commit === seen.commit;
}

/**
 * What an existing record means for a new delivery of the same dedupe key:
 * - `delivered`: pushed / opened / merged before → answer `duplicate`;
 * - `in-progress`: a `pending` younger than `pendingTimeoutMs` — another
 *   process may be pushing right now → not delivered, try again later;
 * - `reconcile`: a `pending` at least `pendingTimeoutMs` old — its process
 *   died between recording and finishing — or a `failed` record → ask the
 *   remote what happened.
 */
export function existingDeliveryState(entry: DeliveryEntry, now: number, pendingTimeoutMs: number): 'delivered' | 'in-progress' | 'reconcile' {
  // A recorded failure belongs to no live process: ask the remote at once (a PR may have been opened after all).
  if (entry.kind === 'failed') return 'reconcile';
  if (entry.kind !== 'pending') return 'delivered';
  return now - parseTimestamp(entry.at) >= pendingTimeoutMs ? 'reconcile' : 'in-progress';
}

/** The `in-progress` failure message for a fresh pending record. */
export function inProgressMessage(entry: DeliveryEntry, now: number, pendingTimeoutMs: number): string {
  const minutes = (ms: number) => `${Math.max(0, Math.round(ms / 60_000))} min`;
  return `Another delivery of ${entry.key} (branch ${entry.branch}) started ${minutes(now - parseTimestamp(entry.at))} ago and has not finished; it may still be pushing, so nothing was pushed or opened for this tick. To fix: nothing — once the record is older than the lease timeout (${minutes(pendingTimeoutMs)}) the next delivery checks the remote and finishes or retries it.`;
}

export interface PullRequestCaps {
  maxOpenPullRequests: number;
  maxPullRequestsPerHour: number;
}

/**
 * Renovate-like hygiene: refuses a new pull request when the pattern already
 * has `maxOpenPullRequests` open, or opened `maxPullRequestsPerHour` in the
 * last hour. Returns the reason, or null when a PR may be opened.
 *
 * @example
 * ```ts
 * pullRequestCapReason(ledger, 'ci-sweeper', 5, now, { maxOpenPullRequests: 5, maxPullRequestsPerHour: 2 });
 * // → 'ci-sweeper already has 5 open loop pull requests (cap 5).'
 * ```
 */
export function pullRequestCapReason(ledger: DeliveryLedger, patternId: string, openCount: number, now: number, caps: PullRequestCaps): string | null {
  if (openCount >= caps.maxOpenPullRequests) {
    return `${patternId} already has ${openCount} open loop pull request(s) (cap ${caps.maxOpenPullRequests}).`;
  }
  const hourAgo = now - 3_600_000;
  const lastHour = ledger.deliveries.filter(
    (entry) => entry.pattern === patternId && (entry.kind === 'pull-request' || entry.kind === 'merged' || entry.kind === 'pending') && parseTimestamp(entry.at) > hourAgo,
  ).length;
  if (lastHour >= caps.maxPullRequestsPerHour) {
    return `${patternId} opened ${lastHour} loop pull request(s) in the last hour (cap ${caps.maxPullRequestsPerHour}).`;
  }
  return null;
}

/**
 * Verified commits whose delivery failed (`kind: failed`), oldest first,
 * optionally of one pattern: the stranded work the inbox lists and a retry
 * delivers.
 *
 * @example
 * ```ts
 * failedDeliveries(ledger, 'ci-sweeper'); // → [{ key: 'ci-sweeper:run-7', kind: 'failed', reason: 'Could not push …', … }]
 * ```
 */
export function failedDeliveries(ledger: DeliveryLedger, patternId?: string): DeliveryEntry[] {
  return ledger.deliveries.filter((entry) => entry.kind === 'failed' && (patternId === undefined || entry.pattern === patternId)).sort((a, b) => a.at.localeCompare(b.at));
}

/**
 * Finds a failed delivery by its worktree id, its dedupe key or its item key
 * (the newest for an item key).
 */
export function findFailedDelivery(ledger: DeliveryLedger, id: string): DeliveryEntry | undefined {
  const failed = failedDeliveries(ledger);
  return failed.find((entry) => entry.retry?.worktree === id || entry.key === id) ?? failed.filter((entry) => entry.itemKey === id).at(-1);
}

/**
 * The item keys of `patternId` with a proposal still open as this ledger
 * knows it: delivered but not known merged (pushed, pull request), or
 * verified with a failed delivery (retried without the agent). Proposing one
 * of them again would only be answered `duplicate` — or make a second change
 * for one item. A `pending` record is not counted: a live one answers
 * `in-progress`, and a crashed one is reconciled by the next delivery of its
 * key, which needs a tick that acts on the item.
 */
export function openProposalItems(ledger: DeliveryLedger, patternId: string): string[] {
  return ledger.deliveries.filter((entry) => entry.pattern === patternId && (entry.kind === 'pushed' || entry.kind === 'pull-request' || entry.kind === 'failed')).map((entry) => entry.itemKey);
}

/** Pull requests this ledger believes are open for a pattern (fallback when GitHub cannot be asked). */
export function recordedPullRequests(ledger: DeliveryLedger, patternId: string, since: number): number {
  return ledger.deliveries.filter((entry) => entry.pattern === patternId && entry.kind === 'pull-request' && parseTimestamp(entry.at) > since).length;
}

/** `owner/repo` from a GitHub remote URL (https, ssh or scp-like), or null. */
export function githubRepository(remoteUrl: string): string | null {
  const match = /github\.com[/:]([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/.exec(remoteUrl.trim());
  return match ? `${match[1]}/${match[2]}` : null;
}
