export { LoopEngine } from './loop-engine.js';
export type { EnginePorts } from './engine-ports.js';
export * from '../ports/index.js';
export { isFailure, isHalt, runLogOutcome } from './tick-result.js';
export type { HaltReason, TickBase, TickKind, TickResult, TickStep, VerificationSummary } from './tick-result.js';
export { toTickRecord } from './tick-record.js';
export { circuitState, errorSignature, failedAttemptsOn } from './circuit-breaker.js';
export type { AttemptLimits, CircuitState } from './circuit-breaker.js';
export { MemoryAttemptLedger, neverPaused, SequentialIds, wallClock } from './defaults.js';
