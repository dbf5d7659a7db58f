import type { ExecutionPlan } from '../plan/execution-plan.js';
import type { WorkItem } from './agent-backend.js';

export interface DiscoveryResult {
  /** False when every probe found nothing: the tick ends as a no-op without any model call. */
  found: boolean;
  /** One line per probe, for the state file and run log. */
  notes: string[];
  /** Items the probes found (passed to triage as untrusted data). */
  items: WorkItem[];
}

/** Cheap deterministic probes that run before any LLM call. */
export interface Discovery {
  readonly specificationVersion: 'discovery-v1';
  discover(plan: ExecutionPlan): Promise<DiscoveryResult>;
}
