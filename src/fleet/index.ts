export { durablePorts, StepClock, workflowIds, type DurablePortsOptions, type StepRunner } from './durable-ports.js';
export { FleetWorker, tickWorkflowId, TICK_QUEUE, TICK_WORKFLOW, type FleetTickInput, type FleetWorkerOptions, type TickWiring, type WiredTick } from './fleet-worker.js';
