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
}

export interface DeliveryRecord {
  kind: 'local' | 'pushed' | 'pull-request' | 'merged' | 'duplicate';
  url?: string;
  branch: string;
}

/** Pushes, opens pull requests, merges. Absent → commits stay on a local branch. */
export interface Delivery {
  readonly specificationVersion: 'delivery-v1';
  deliver(request: DeliveryRequest): Promise<({ ok: true } & DeliveryRecord) | Failure<'duplicate' | 'rate-limited' | 'conflict' | 'push' | 'api'>>;
}
