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
// The root is the engine, plan building, the runtime, errors and the port types (values counted by
// test/package-exports.test.ts: at most 60). Schemas and file formats: loop-runtime/schemas; pure rules:
// loop-runtime/helpers; file adapters: loop-runtime/adapters; memory doubles: loop-runtime/testing.
export * from './core/errors.js';
export type * from './core/engine/index.js';
export { isFailure, isHalt, LoopEngine, PORT_VERSIONS, resultForRole, SequentialIds, totalTokens, ZERO_USAGE } from './core/engine/index.js';
export type * from './core/budget/index.js';
export { BudgetBreaker } from './core/budget/index.js';
export type * from './core/gate/index.js';
export type * from './core/config/index.js';
export { formatDiagnostic, loadRegistry } from './core/config/index.js';
export type * from './core/state/index.js';
export type * from './core/verify/index.js';
export type * from './core/security/index.js';
export { buildPlan } from './core/plan/build-plan.js';
export type { BuildPlanOptions } from './core/plan/build-plan.js';
export { AUTO_BACKEND, EXECUTION_PLAN_VERSION } from './core/plan/execution-plan.js';
export type { BackendSource, CommandSpec, DeliveryMode, ExecutionPlan, GatePolicy, ProbeSpec } from './core/plan/execution-plan.js';
export { AGENT_TOOLS, agentCandidates } from './core/plan/agent-tools.js';
export type { AgentTool, BackendCandidate } from './core/plan/agent-tools.js';
export { systemClock } from './adapters/clock/system-clock.js';

// The composition root: what every entry point opens.
export { loadProject, resolvePlan, findPackageRoot } from './project/load-project.js';
export type { LoadedProject, LoadProjectResult, ResolvePlanResult } from './project/load-project.js';
export { loadInstructions } from './project/load-instructions.js';
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
