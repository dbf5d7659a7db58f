import type { ItemLeaseResult, ItemLeases } from '../../core/ports/index.js';
import type { FileLeases } from './file-leases.js';

// The stale margin beside the item leases that use it: the wiring and the file stores take both from here, so the
// bundle keeps them in one chunk (status and a tick load one file for them, not two).
export { LEASE_MARGIN_MS } from './lease-records.js';

/**
 * The engine's item-lease port over `FileLeases`.
 *
 * @example
 * ```ts
 * const ports = { ...ports, items: new FileItemLeases(new FileLeases({ root }), { staleMs: plan.timeoutMs + 300_000 }) };
 * ```
 */
export class FileItemLeases implements ItemLeases {
  readonly specificationVersion = 'item-leases-v1' as const;
  constructor(
    private readonly leases: Pick<FileLeases, 'acquireItemLease'>,
    private readonly options: { staleMs?: number } = {},
  ) {}

  async acquire(request: { itemKey: string; patternId: string; tickId: string }): Promise<ItemLeaseResult> {
    const result = await this.leases.acquireItemLease(request.itemKey, { loop: request.patternId, tickId: request.tickId, ...(this.options.staleMs ? { staleMs: this.options.staleMs } : {}) });
    if (!result.ok) return { ok: false, holder: result.holder?.loop ?? 'another loop', message: result.message };
    const { lease } = result;
    return { ok: true, release: () => lease.release() };
  }
}
