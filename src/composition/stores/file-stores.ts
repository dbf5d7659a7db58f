/** The default stores: files beside the repository (`.loop-runtime/`, loop-ledger.json, the run log). */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { AttemptLedger, AttemptRecord, Clock } from '../../core/ports/index.js';
import type { OutcomeHistory, OutcomeLine } from '../../core/outcomes/index.js';
import type { OutcomeStore } from '../../adapters/outcomes/outcome-store.js';
import type { FileAttemptLedgerOptions } from '../../adapters/attempt-ledger/file-attempt-ledger.js';
import { FileBudgetLedger } from '../../adapters/budget-ledger/file-budget-ledger.js';
import { FileKillSwitch } from '../../adapters/kill-switch/kill-switch.js';
import type { LoadedProject } from '../../project/load-project.js';
import { FileItemLeases, LEASE_MARGIN_MS } from '../../adapters/leases/file-item-leases.js';
import { killSwitchTarget, type ProjectStores } from './project-stores.js';
import { spendByTick } from '../../use-cases/outcomes/spend-by-tick.js';

/**
 * The file attempt ledger, loaded on its first call: `status` opens the stores only to read spend, and the
 * ledger's module brings zod (its file schema) and the lease code brings node:crypto. Same ledger, same file.
 */
class LazyFileAttemptLedger implements AttemptLedger {
  readonly specificationVersion = 'attempt-ledger-v2' as const;
  private ledger: Promise<AttemptLedger> | null = null;

  constructor(private readonly options: FileAttemptLedgerOptions) {}

  /** A ledger no tick wrote yet is empty: `status` and `doctor` read it for the circuit without loading zod. */
  async history(): Promise<readonly AttemptRecord[]> {
    if (!this.ledger && !existsSync(resolve(this.options.root, this.options.file ?? 'loop-ledger.json'))) return [];
    return (await this.open()).history();
  }

  async append(record: AttemptRecord): Promise<void> {
    return (await this.open()).append(record);
  }

  private open(): Promise<AttemptLedger> {
    return (this.ledger ??= import('../../adapters/attempt-ledger/file-attempt-ledger.js').then(({ FileAttemptLedger }) => new FileAttemptLedger(this.options)));
  }
}

/**
 * The repository's outcomes file (`.loop-runtime/outcomes.jsonl`), loaded on its first call (its line schema brings
 * zod, which `status` never needs). The only place the file store of outcomes is made: everything else asks
 * `ProjectStores.outcomes()`.
 */
export function outcomeStoreFor(root: string): OutcomeStore {
  let store: Promise<OutcomeStore> | null = null;
  const open = () => (store ??= import('../../adapters/outcomes/outcome-store.js').then(({ FileOutcomeStore }) => new FileOutcomeStore(root)));
  return {
    reach: 'checkout',
    lines: async (): Promise<OutcomeLine[]> => (await open()).lines(),
    history: async (): Promise<OutcomeHistory> => (await open()).history(),
    append: async (lines, options) => (await open()).append(lines, options),
    removeRehearsal: async (patternId) => (await open()).removeRehearsal(patternId),
  };
}

async function fileLeases(root: string) {
  const { FileLeases } = await import('../../adapters/leases/file-leases.js');
  return new FileLeases({ root });
}

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
    attempts: (plan, backendName, redact) => new LazyFileAttemptLedger({ root, file: plan.files.ledger, patternId: plan.pattern.id, goal: plan.pattern.goal, redact, backend: backendName }),
    itemLeases: (plan) => new FileItemLeases({ acquireItemLease: async (itemKey, options) => (await fileLeases(root)).acquireItemLease(itemKey, options) }, { staleMs: staleMs(plan) }),
    killSwitch(target, wiring) {
      const loop = killSwitchTarget(target);
      const plan = loop?.plan;
      return new FileKillSwitch({
        root,
        env: wiring.env,
        ...(loop ? { patternId: loop.patternId } : {}),
        ...(plan ? { stateFile: plan.files.state, runLog: plan.files.runLog, level: plan.level } : {}),
        ...(wiring.redact ? { redact: wiring.redact } : {}),
        ...(wiring.backendName ? { backend: wiring.backendName } : {}),
        ...(wiring.readText ? { readText: wiring.readText } : {}),
        ...(wiring.readRunLog ? { readRunLog: wiring.readRunLog } : {}),
      });
    },
    acquireLoopLease: async (plan) => (await fileLeases(root)).acquireLoopLease(plan.pattern.id, { staleMs: staleMs(plan) }),
    deliveryLedger: () => undefined,
    outcomes: () => outcomeStoreFor(root),
    recordTicks: async () => undefined,
    pastTicks: async () => [],
    spendByTick: async () => spendByTick(root),
    removeRehearsal: async (patternId) => ({
      spendRecords: await new FileBudgetLedger({ root }).removeRehearsal(patternId),
      outcomes: await outcomeStoreFor(root).removeRehearsal(patternId),
      attempts: 0,
      runs: 0,
    }),
    runs: async () => null,
    close: async () => undefined,
  };
}
