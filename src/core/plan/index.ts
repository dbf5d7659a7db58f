export { buildPlan } from './build-plan.js';
export type { BuildPlanOptions } from './build-plan.js';
export { AUTO_BACKEND, EXECUTION_PLAN_VERSION } from './execution-plan.js';
export type { AutonomyPolicy, BackendSource, CommandSpec, DeliveryMode, ExecutionPlan, GatePolicy, ProbeSpec } from './execution-plan.js';
export { AGENT_SCAFFOLD_FOLDERS, AGENT_TOOLS, OPENCODE_ROOT_SCAFFOLD, agentCandidates, agentForBackend, scaffoldLabel } from './agent-tools.js';
export type { AgentTool, BackendCandidate } from './agent-tools.js';
