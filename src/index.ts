/**
 * loop-runtime's public API. The core (planner, engine, budget, gates,
 * state formats) is pure; the Node adapters (files, git, sandbox) and the
 * composition root live under `node/`.
 *
 * @example
 * ```ts
 * import { LoopEngine, buildPlan, BudgetBreaker, MemoryStateWriter } from 'loop-runtime';
 * import { MockBackend } from 'loop-runtime/testing';
 * const plan = buildPlan(pattern, { level: 'L2' });
 * const engine = new LoopEngine(plan, { backend: new MockBackend(), state: new MemoryStateWriter(),
 *   budget: new BudgetBreaker(plan.dailyTokenCap) });
 * const result = await engine.tick();
 * ```
 */
export * from './errors.js';
export * from './engine/index.js';
export * from './budget/index.js';
export * from './gate/index.js';
export * from './config/index.js';
export { buildPlan } from './plan/build-plan.js';
export type { BuildPlanOptions } from './plan/build-plan.js';
export { EXECUTION_PLAN_VERSION } from './plan/execution-plan.js';
export type { CommandSpec, DeliveryMode, ExecutionPlan, GatePolicy, ProbeSpec } from './plan/execution-plan.js';
export * from './state/index.js';
export * from './verify/index.js';
export * from './security/index.js';
export { MemoryWorkspace } from './workspace/memory-workspace.js';
export type { MemoryWorkspaceOptions, MemoryWorkspaceStatus } from './workspace/memory-workspace.js';

// Node adapters and the composition root.
export { loadProject, resolvePlan, findPackageRoot } from './node/load-project.js';
export type { LoadedProject, LoadProjectResult, ResolvePlanResult } from './node/load-project.js';
export { loadInstructions } from './node/load-instructions.js';
export { FileStateWriter } from './node/file-state-writer.js';
export type { FileStateWriterOptions } from './node/file-state-writer.js';
export { FileBudgetLedger } from './node/file-budget-ledger.js';
export type { FileBudgetLedgerOptions } from './node/file-budget-ledger.js';
export { FileAttemptLedger } from './node/file-attempt-ledger.js';
export type { FileAttemptLedgerOptions } from './node/file-attempt-ledger.js';
export { FileKillSwitch } from './node/kill-switch.js';
export type { FileKillSwitchOptions } from './node/kill-switch.js';
export { createLoopRuntime } from './node/create-runtime.js';
export type { LoopRuntime, RuntimeOptions } from './node/create-runtime.js';
