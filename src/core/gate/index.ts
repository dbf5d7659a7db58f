export { checkGate, DEFAULT_GATE_POLICY, GATE_ACTIONS } from './check-gate.js';
export type { GateAction, GateDecision, GateTrigger } from './check-gate.js';
