/** How probe outcomes combine into one DiscoveryResult; shared by ProbeDiscovery and its memory twin. Pure. */
import type { DiscoveryResult, WorkItem } from '../../core/ports/index.js';
import type { ProbeOutcome } from '../../core/schedule/interpret-probe.js';

/**
 * Found when any probe found work or could not tell; items from every probe
 * that found some, in probe order, deduplicated by key.
 */
export function combineOutcomes(outcomes: readonly ProbeOutcome[]): DiscoveryResult {
  const items: WorkItem[] = [];
  const keys = new Set<string>();
  for (const outcome of outcomes) {
    if (outcome.status !== 'found') continue;
    for (const item of outcome.items) {
      if (keys.has(item.key)) continue;
      keys.add(item.key);
      items.push(item);
    }
  }
  return {
    found: outcomes.some((outcome) => outcome.status !== 'empty'),
    notes: outcomes.map((outcome) => outcome.note),
    items,
  };
}
