/**
 * loop-runtime's public API. The core (planner, engine, budget, gates,
 * state formats) is pure (`src/core`); the Node adapters (files, git,
 * sandbox) live under `src/adapters/<port>`, and `openRuntime` — the one
 * wiring path every entry point uses — under `src/composition`.
 *
 * @example
 * ```ts
 * import { LoopEngine, buildPlan } from 'loop-runtime';
 * import { createMemoryPorts } from 'loop-runtime/testing';
 * const plan = buildPlan(pattern, { level: 'L2', overrides: { verify: ['npm test'] } });
 * const engine = new LoopEngine(plan, createMemoryPorts({ plan, commands: {} }));
 * const result = await engine.tick();
 * ```
 */
export * from './core/errors.js';
export * from './core/engine/index.js';
export * from './core/budget/index.js';
export * from './core/gate/index.js';
export * from './core/config/index.js';
export { buildPlan } from './core/plan/build-plan.js';
export type { BuildPlanOptions } from './core/plan/build-plan.js';
export { AUTO_BACKEND, EXECUTION_PLAN_VERSION } from './core/plan/execution-plan.js';
export type { BackendSource, CommandSpec, DeliveryMode, ExecutionPlan, GatePolicy, ProbeSpec } from './core/plan/execution-plan.js';
export { AGENT_TOOLS, agentCandidates } from './core/plan/agent-tools.js';
export type { AgentTool, BackendCandidate } from './core/plan/agent-tools.js';
export * from './core/state/index.js';
export * from './core/verify/index.js';
export * from './core/security/index.js';
export { MemoryWorkspace } from './adapters/workspace/memory-workspace.js';
export { MemoryBudgetLedger } from './adapters/budget-ledger/memory-budget-ledger.js';
export { OverlayBudgetLedger } from './adapters/budget-ledger/overlay-budget-ledger.js';
export { MemoryStateWriter } from './adapters/state-writer/memory-state-writer.js';
export type { MemoryStateWriterOptions } from './adapters/state-writer/memory-state-writer.js';
export { MemoryKillSwitch } from './adapters/kill-switch/memory-kill-switch.js';
export { MemoryAttemptLedger } from './adapters/attempt-ledger/memory-attempt-ledger.js';
export { systemClock } from './adapters/clock/system-clock.js';
export type { MemoryWorkspaceOptions, MemoryWorkspaceStatus } from './adapters/workspace/memory-workspace.js';

// Node adapters and the composition root.
export { loadProject, resolvePlan, findPackageRoot } from './project/load-project.js';
export type { LoadedProject, LoadProjectResult, ResolvePlanResult } from './project/load-project.js';
export { loadInstructions } from './project/load-instructions.js';
export { FileStateWriter } from './adapters/state-writer/file-state-writer.js';
export type { FileStateWriterOptions } from './adapters/state-writer/file-state-writer.js';
export { FileBudgetLedger } from './adapters/budget-ledger/file-budget-ledger.js';
export type { FileBudgetLedgerOptions } from './adapters/budget-ledger/file-budget-ledger.js';
export { FileAttemptLedger } from './adapters/attempt-ledger/file-attempt-ledger.js';
export type { FileAttemptLedgerOptions } from './adapters/attempt-ledger/file-attempt-ledger.js';
export { FileKillSwitch } from './adapters/kill-switch/kill-switch.js';
export type { FileKillSwitchOptions } from './adapters/kill-switch/kill-switch.js';
export { createLoopRuntime } from './composition/create-runtime.js';
export { openRuntime } from './composition/runtime.js';
export type { OpenRuntimeOptions, Planned, RunRequest, Runtime } from './composition/runtime.js';
export type { DueLoopReport, DueRunSummary, RunSummary } from './use-cases/run.js';
export type { LoopStatus, LoopStatusReport } from './use-cases/status.js';
export type { DoctorCheck, DoctorLoop, DoctorReport } from './use-cases/doctor.js';
export { describeBackendChoice, type BackendChoice } from './composition/backend-choice.js';
export type { ApproveResult, InboxItem, RejectResult } from './use-cases/approval.js';
export type { RetryResult, StrandedItem } from './use-cases/deliver.js';
export type { PreconditionCheck, PreconditionProblem } from './use-cases/preconditions.js';
export type { LoopRuntime, RuntimeOptions } from './composition/create-runtime.js';
