export type ItemLeaseResult = { ok: true; release(): Promise<void> } | { ok: false; holder: string; message: string };

/**
 * Optional: one loop at a time per work item, across loops and processes.
 * The engine takes the item's lease before it prepares a workspace and
 * releases it when the act path ends, whatever the outcome.
 *
 * @example
 * ```ts
 * const items: ItemLeases = { specificationVersion: 'item-leases-v1', async acquire() { return { ok: true, release: async () => {} }; } };
 * ```
 */
export interface ItemLeases {
  readonly specificationVersion: 'item-leases-v1';
  acquire(request: { itemKey: string; patternId: string; tickId: string }): Promise<ItemLeaseResult>;
}
