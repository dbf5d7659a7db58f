/**
 * Makes a tick durable at its ports. Every call the engine makes to a port
 * that reaches shared state or a paid service (backend, budget ledger,
 * attempt ledger, state, kill switch, discovery, delivery, item leases) runs
 * as one durable step: its answer is checkpointed before the engine sees it,
 * so a tick replayed after a crash — on any worker — gets the recorded
 * answer back instead of calling again. Time and ids come from the steps too
 * (a step clock and ids derived from the workflow id), so a replay takes the
 * same path. The workspace and command runner stay local: a worktree lives on
 * one machine's disk and is prepared again by the worker that resumes, and
 * the implementer's checkpoint carries the text of the files it changed so
 * its edits are restored there (binary files are not carried).
 */
import { BudgetBreaker } from '../core/budget/budget-breaker.js';
import type { EnginePorts } from '../core/engine/engine-ports.js';
import type { AgentBackend, AgentResult, BudgetLedger, Clock, IdGenerator, ItemLeaseResult, ItemLeases, Workspace, WorkspaceHandle } from '../core/ports/index.js';

/** Runs `body` as one durable step named `name` (DBOS.runStep in a fleet worker; a plain call in tests). */
export type StepRunner = <T>(name: string, body: () => Promise<T>) => Promise<T>;

/** A clock that moves only when a step records the time it finished: the same on every replay. */
export class StepClock implements Clock {
  private current: number;
  constructor(start: number) {
    this.current = start;
  }
  now(): number {
    return this.current;
  }
  /** Never moves backwards (a recorded time from another worker's clock may be earlier). */
  moveTo(at: number): void {
    this.current = Math.max(this.current, at);
  }
}

/** Ids derived from the workflow id: a replayed tick gets the same tick id. */
export function workflowIds(workflowId: string): IdGenerator {
  const counts = new Map<string, number>();
  return {
    next(kind) {
      const count = (counts.get(kind) ?? 0) + 1;
      counts.set(kind, count);
      return count === 1 ? `${kind}-${workflowId}` : `${kind}-${workflowId}-${count}`;
    },
  };
}

function durablePort<T extends object>(port: T, name: string, step: StepRunner): T {
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => step(`${name}.${property}`, async () => Reflect.apply(value, target, args) as unknown);
    },
  });
}

function durableItems(items: ItemLeases, step: StepRunner): ItemLeases {
  // Release handles cannot be checkpointed: keep the live ones; a lease taken by a worker that died expires after staleMs.
  const live = new Map<number, () => Promise<void>>();
  let calls = 0;
  return {
    specificationVersion: items.specificationVersion,
    async acquire(request) {
      const call = ++calls;
      const answer = await step('items.acquire', async () => {
        const result = await items.acquire(request);
        if (!result.ok) return result;
        live.set(call, result.release);
        return { ok: true as const };
      });
      if (!answer.ok) return answer;
      const held: ItemLeaseResult = { ok: true, release: () => step('items.release', async () => void (await live.get(call)?.())) };
      return held;
    },
  };
}

/** The text of every file the implementer changed (null: deleted), so a worker that resumes can restore its edits. */
type EditSnapshot = Record<string, string | null>;

async function snapshotEdits(workspace: Workspace, handle: WorkspaceHandle): Promise<EditSnapshot> {
  const changed = await workspace.changes(handle);
  const files = workspace.files?.(handle);
  if (!changed.ok || !files) return {};
  const snapshot: EditSnapshot = {};
  for (const file of changed.changes.files) {
    if (!file.binary) snapshot[file.path] = await files.read(file.path);
    if (file.from) snapshot[file.from] = null;
  }
  return snapshot;
}

async function restoreEdits(workspace: Workspace, handle: WorkspaceHandle, snapshot: EditSnapshot): Promise<void> {
  const files = workspace.files?.(handle);
  if (!files) return;
  for (const [path, text] of Object.entries(snapshot)) {
    if (text !== null) await files.write(path, text);
    else await files.remove?.(path);
  }
}

/**
 * The implementer's answer is checkpointed with the edits it made: writing
 * them back is idempotent, so it is done on every run of the step's
 * workflow — a no-op where they already are, the restore on a worker that
 * resumes after the implement step completed elsewhere.
 */
function durableBackend(backend: AgentBackend, workspace: Workspace, step: StepRunner): AgentBackend {
  const plain = durablePort(backend, 'backend', step);
  return new Proxy(plain, {
    get(target, property, receiver) {
      if (property !== 'run') return Reflect.get(target, property, receiver);
      const run: AgentBackend['run'] = async (request) => {
        if (request.role !== 'implement') return target.run(request);
        const answer = await step('backend.run', async (): Promise<{ result: AgentResult; edits: EditSnapshot }> => {
          const result = await backend.run(request);
          return { result, edits: await snapshotEdits(workspace, request.workspace) };
        });
        await restoreEdits(workspace, request.workspace, answer.edits);
        return answer.result;
      };
      return run;
    },
  });
}

export interface DurablePortsOptions {
  /** The workflow id: tick ids derive from it. */
  workflowId: string;
  /** When the tick was started (recorded as the workflow's input). */
  startedAt: number;
  /** The real clock each step reads when it finishes. */
  clock: Clock;
  /** The ledger under `ports.budget`, wrapped so every reservation is a step. */
  budgetLedger: BudgetLedger;
}

/**
 * @example
 * ```ts
 * const ports = durablePorts(wired, (name, body) => DBOS.runStep(body, { name }), { workflowId, startedAt, clock, budgetLedger });
 * const result = await new LoopEngine(plan, ports).tick();
 * ```
 */
export function durablePorts(ports: EnginePorts, runStep: StepRunner, options: DurablePortsOptions): EnginePorts {
  const clock = new StepClock(options.startedAt);
  const step: StepRunner = async (name, body) => {
    const answer = await runStep(name, async () => ({ value: await body(), at: options.clock.now() }));
    clock.moveTo(answer.at);
    return answer.value;
  };
  const ledger = durablePort(options.budgetLedger, 'budget', step);
  const durable: EnginePorts = {
    ...ports,
    backend: durableBackend(ports.backend, ports.workspace, step),
    state: durablePort(ports.state, 'state', step),
    attempts: durablePort(ports.attempts, 'attempts', step),
    killSwitch: durablePort(ports.killSwitch, 'killSwitch', step),
    budget: new BudgetBreaker(ports.budget.dailyTokenCap, { ledger, degradeAtFraction: ports.budget.degradeAtFraction }),
    clock,
    ids: workflowIds(options.workflowId),
  };
  if (ports.discovery) durable.discovery = durablePort(ports.discovery, 'discovery', step);
  if (ports.delivery) durable.delivery = durablePort(ports.delivery, 'delivery', step);
  if (ports.items) durable.items = durableItems(ports.items, step);
  return durable;
}
