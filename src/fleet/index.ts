export { durablePorts, StepClock, workflowIds, type DurablePortsOptions, type StepRunner } from './durable-ports.js';
export { FleetWorker, tickWorkflowId, TICK_QUEUE, TICK_WORKFLOW, type FleetTickInput, type FleetTickResult, type FleetWorkerOptions, type TickWiring, type WiredTick } from './fleet-worker.js';
export { holdTickLease, postgresTickLease, type FleetLoopLease, type PostgresTickLeaseOptions, type HeldTickLease, type LoopLeaseTake, type SkippedOverlapTick } from './tick-lease.js';
