/**
 * The event source: discovery for a tick triggered by a GitHub event (`run <id> --event-item <file>`, written by
 * `ci event`). It yields exactly the event's item instead of running the loop's probes, and the triage answer is
 * held to that item, so the event is THE work item. Everything else is an ordinary tick: the loop's lease, the
 * budget, the attempt circuit, the item lease and the one-open-proposal rule apply as for a scheduled one.
 */
import type { AgentBackend, Discovery, DiscoveryResult, WorkItem } from '../../core/ports/index.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';

/** The probe name the event's item is reported under (notes, the run log). */
export const EVENT_PROBE = 'github-event';

/**
 * @example
 * ```ts
 * const discovery = new EventDiscovery({ key: 'issue#7', title: 'Login fails' }, 'github-event: issues labeled #7');
 * await discovery.discover(plan); // → { found: true, notes: ['github-event: issues labeled #7'], items: [{ key: 'issue#7', … }] }
 * ```
 */
export class EventDiscovery implements Discovery {
  readonly specificationVersion = 'discovery-v1' as const;
  constructor(
    private readonly item: WorkItem,
    private readonly note = `${EVENT_PROBE}: ${item.key}`,
  ) {}

  async discover(): Promise<DiscoveryResult> {
    return { found: true, notes: [this.note], items: [{ ...this.item }] };
  }
}

/**
 * The plan the engine runs for an event tick: one probe, the event (the engine asks discovery only when a plan has
 * probes; a loop with `probes: []` still gets its event's item). Nothing is executed for it.
 */
export function withEventProbe(plan: ExecutionPlan): ExecutionPlan {
  return { ...plan, earlyExit: { ...plan.earlyExit, probes: [{ name: EVENT_PROBE, command: '(the GitHub event)', found: 'json-entries', timeoutMs: 1 }] } };
}

/**
 * Holds triage to the event's item: an `act` or `report` answer names exactly that item (keeping the paths triage
 * suggested for it or, failing that, for its first item), whatever else the model listed. `noop` stays a no-op.
 */
export function pinTriageToItem(backend: AgentBackend, item: WorkItem): AgentBackend {
  return {
    specificationVersion: backend.specificationVersion,
    name: backend.name,
    async run(request) {
      const result = await backend.run(request);
      if (!result.ok || result.role !== 'triage' || result.output.decision === 'noop') return result;
      const suggested = result.output.items.find((candidate) => candidate.key === item.key) ?? result.output.items[0];
      const paths = suggested?.paths ?? item.paths;
      return { ...result, output: { ...result.output, items: [{ ...item, ...(paths ? { paths } : {}) }] } };
    },
    ...(backend.close ? { close: () => backend.close!() } : {}),
  };
}

/** What `ci event` writes and `run --event-item` reads: the item and the discovery note. */
export interface EventItem {
  item: WorkItem;
  note: string;
}
