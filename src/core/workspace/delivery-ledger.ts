/**
 * `.loop-runtime/deliveries.json`: one record per dedupe key (pattern + item)
 * that was pushed or opened as a pull request, and the pull-request caps
 * checked against it. Pure: no I/O.
 */
import { z } from 'zod';
import { parseTimestamp } from '../time/utc-time.js';

export const DeliveryEntrySchema = z.looseObject({
  key: z.string().min(1),
  pattern: z.string(),
  itemKey: z.string(),
  branch: z.string(),
  /** `pending` is written before the push, so a crash mid-delivery never leads to a second push or PR. */
  kind: z.enum(['pending', 'pushed', 'pull-request', 'merged']),
  url: z.string().optional(),
  commit: z.string().optional(),
  /** ISO time the record was first written. */
  at: z.string(),
});
export type DeliveryEntry = z.infer<typeof DeliveryEntrySchema>;

export interface DeliveryLedger {
  version: 1;
  deliveries: DeliveryEntry[];
}

/** Parses deliveries.json; missing or corrupt reads as empty, unreadable records are dropped. */
export function parseDeliveryLedger(text: string | null): DeliveryLedger {
  if (!text?.trim()) return { version: 1, deliveries: [] };
  try {
    const raw = JSON.parse(text) as { deliveries?: unknown[] };
    const deliveries: DeliveryEntry[] = [];
    for (const entry of Array.isArray(raw.deliveries) ? raw.deliveries : []) {
      const parsed = DeliveryEntrySchema.safeParse(entry);
      if (parsed.success) deliveries.push(parsed.data);
    }
    return { version: 1, deliveries };
  } catch {
    return { version: 1, deliveries: [] };
  }
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

/** Pull requests this ledger believes are open for a pattern (fallback when GitHub cannot be asked). */
export function recordedPullRequests(ledger: DeliveryLedger, patternId: string, since: number): number {
  return ledger.deliveries.filter((entry) => entry.pattern === patternId && entry.kind === 'pull-request' && parseTimestamp(entry.at) > since).length;
}

/** `owner/repo` from a GitHub remote URL (https, ssh or scp-like), or null. */
export function githubRepository(remoteUrl: string): string | null {
  const match = /github\.com[/:]([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/.exec(remoteUrl.trim());
  return match ? `${match[1]}/${match[2]}` : null;
}
