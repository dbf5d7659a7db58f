/** The default stores: files beside the repository (`.loop-runtime/`, loop-ledger.json, the run log). */
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { Clock } from '../../core/ports/index.js';
import { FileAttemptLedger } from '../../adapters/attempt-ledger/file-attempt-ledger.js';
import { FileBudgetLedger } from '../../adapters/budget-ledger/file-budget-ledger.js';
import type { LoadedProject } from '../../project/load-project.js';
import { FileItemLeases, FileLeases, LEASE_MARGIN_MS } from '../lease.js';
import type { ProjectStores } from './project-stores.js';

/**
 * @example
 * ```ts
 * const stores = fileStores(project, systemClock);
 * const lease = await stores.acquireLoopLease(plan); // .loop-runtime/leases/<id>.lock
 * ```
 */
export function fileStores(project: LoadedProject, _clock: Clock): ProjectStores {
  const root = project.root;
  const staleMs = (plan: ExecutionPlan) => plan.timeoutMs + LEASE_MARGIN_MS;
  return {
    kind: 'files',
    description: 'files under .loop-runtime/',
    budgetLedger: (plan, backendName) => new FileBudgetLedger({ root, runLog: plan.files.runLog, backend: backendName }),
    async spentByLoopOn(day, plans) {
      const spent = new Map<string, number>();
      const byRunLog = new Map<string, string[]>();
      for (const plan of plans) byRunLog.set(plan.files.runLog, [...(byRunLog.get(plan.files.runLog) ?? []), plan.pattern.id]);
      for (const [runLog, ids] of byRunLog) for (const [id, tokens] of await new FileBudgetLedger({ root, runLog }).spentByLoopOn(day, ids)) spent.set(id, tokens);
      return spent;
    },
    attempts: (plan, backendName, redact) => new FileAttemptLedger({ root, file: plan.files.ledger, patternId: plan.pattern.id, goal: plan.pattern.goal, redact, backend: backendName }),
    itemLeases: (plan) => new FileItemLeases(new FileLeases({ root }), { staleMs: staleMs(plan) }),
    acquireLoopLease: (plan) => new FileLeases({ root }).acquireLoopLease(plan.pattern.id, { staleMs: staleMs(plan) }),
    deliveryLedger: () => undefined,
    recordTicks: async () => undefined,
    pastTicks: async () => [],
    runs: async () => null,
    close: async () => undefined,
  };
}
