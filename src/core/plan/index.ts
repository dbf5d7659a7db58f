export { buildPlan } from './build-plan.js';
export type { BuildPlanOptions } from './build-plan.js';
export { EXECUTION_PLAN_VERSION } from './execution-plan.js';
export type { AutonomyPolicy, CommandSpec, DeliveryMode, ExecutionPlan, GatePolicy, ProbeSpec } from './execution-plan.js';
