/**
 * The one-open-proposal rule's match: an item's proposal is open when `Delivery.openProposals` lists its key or a key
 * an earlier version gave the same item (`WorkItem.formerKeys`, e.g. a CI failure's `ci-run#<id>`). Pure.
 */
import type { WorkItem } from '../ports/index.js';

/**
 * Whether `item` has an open proposal among `open` (the keys `Delivery.openProposals` returned), under its key or
 * a former one. `discovered` are the probes' items: a model's triage answer names an item by key only, so its former
 * keys are looked up there.
 *
 * @example
 * ```ts
 * hasOpenProposal({ key: 'ci:CI@main', title: '…' }, new Set(['ci-run#4242']), [{ key: 'ci:CI@main', title: '…', formerKeys: ['ci-run#4242'] }]); // → true
 * ```
 */
export function hasOpenProposal(item: WorkItem, open: ReadonlySet<string>, discovered: readonly WorkItem[] = []): boolean {
  if (open.has(item.key)) return true;
  const former = item.formerKeys ?? discovered.find((candidate) => candidate.key === item.key)?.formerKeys;
  return former !== undefined && former.some((key) => open.has(key));
}
