import type { Failure } from './usage.js';
import type { WorkspaceHandle, CommitRecord } from './workspace.js';

export interface DeliveryRequest {
  handle: WorkspaceHandle;
  commit: CommitRecord;
  patternId: string;
  itemKey: string;
  /** Idempotency key: the same key never opens a second pull request or pushes a second branch. */
  dedupeKey: string;
  title: string;
  body: string;
  merge: boolean;
  /** The tick that made the commit (kept with a failed delivery, so its retry is logged against it). */
  tickId?: string;
}

/**
 * What was delivered. `duplicate`: this item was already delivered (possibly
 * by a crashed earlier tick, found on the remote); nothing was pushed or
 * opened for this request. Every kind is something that exists where it says.
 */
export interface DeliveryRecord {
  kind: 'local' | 'pushed' | 'pull-request' | 'merged' | 'duplicate';
  url?: string;
  branch: string;
}

/**
 * Why nothing was delivered. `in-progress`: another delivery of the same
 * dedupe key is recorded and may still be pushing (retryable, not delivered).
 */
export type DeliveryFailureReason = 'duplicate' | 'in-progress' | 'rate-limited' | 'conflict' | 'push' | 'api';
export type DeliveryFailure = Failure<DeliveryFailureReason>;
export type DeliveryResult = ({ ok: true } & DeliveryRecord) | DeliveryFailure;

/**
 * Pushes, opens pull requests, merges. Absent → commits stay on a local branch.
 *
 * Guarantees (held by `describeDeliveryConformance`, src/testing/conformance):
 * one push and one pull request per dedupe key; a delivery that crashed
 * between recording and finishing is never reported delivered unless the
 * remote has it; a corrupt dedupe ledger throws `STATE_FAILED`, never reads
 * as empty.
 */
export interface Delivery {
  readonly specificationVersion: 'delivery-v1';
  /**
   * Delivers one verified commit. A failure after the dedupe key was reserved
   * (push refused, remote unreachable, pull request refused, cap reached) is
   * recorded as a failed delivery — `detail.recorded: 'failed'` — that a retry
   * delivers later with exactly this commit.
   */
  deliver(request: DeliveryRequest): Promise<DeliveryResult>;
  /**
   * Optional capability: the item keys of `patternId` with a proposal still
   * open (being delivered, pushed or a pull request not known merged, a failed
   * delivery waiting for a retry, a change escalated to a human). The engine
   * does not act on them again.
   *
   * @example
   * ```ts
   * await delivery.openProposals?.('ci-sweeper'); // → ['run-7', 'run-9']
   * ```
   */
  openProposals?(patternId: string): Promise<string[]>;
}
