/** What a lease file holds, and one line of `.loop-runtime/lease-history.jsonl`. */

/** Added to a plan's timeout to get its leases' stale time (here, not in file-leases.ts, so readers of it load no lease code). */
export const LEASE_MARGIN_MS = 5 * 60_000;

export interface LeaseRecord {
  kind: 'loop' | 'item';
  /** Loop id, or the item key for item leases. */
  name: string;
  /** The loop holding it (item leases), or the loop itself. */
  loop: string;
  pid: number;
  host: string;
  startedAt: number;
  staleMs: number;
  token: string;
  /** The fencing number (absent in leases written before fencing). */
  fence?: number;
  tickId?: string;
}

export interface LeaseHistoryLine {
  event: 'acquire' | 'recover' | 'release';
  kind: LeaseRecord['kind'];
  name: string;
  loop: string;
  at: number;
  pid: number;
  host: string;
  token: string;
  /** recover: the lease taken over and why (no pid/host when the lease file was unreadable). */
  previous?: { pid?: number; host?: string; startedAt?: number; reason: string };
  /** release: how the tick ended (what `run --due` reads back as the last run). */
  startedAt?: number;
  outcome?: string;
  tickKind?: string;
  tickId?: string;
}
