/**
 * Conformance suites: one per port, run by the real adapter and its memory
 * twin alike (and by third-party adapters). They register vitest
 * describe/it blocks, so import them from test files only.
 */
export {
  AGENT_BACKEND_CONFORMANCE_CASES,
  describeAgentBackendConformance,
  type AgentBackendConformanceCase,
  type AgentBackendConformanceOptions,
  type BackendUnderTest,
  type ConformanceContext,
} from './agent-backend.js';
export { CONFORMANCE_ANSWERS, FORBIDDEN_FILE, IMPLEMENT_FILE, PWNED_FILE, type ModelScript } from './agent-backend-fixtures.js';
export { describeBudgetLedgerConformance } from './budget-ledger.js';
export type { BudgetLedgerConformanceOptions, BudgetLedgerSubject } from './budget-ledger.js';
export { describeDeliveryConformance } from './delivery.js';
export type { DeliveryFault, DeliveryHarness } from './delivery.js';
export { describeWorkspaceConformance } from './workspace.js';
export type { MakeWorkspace, WorkspaceHarness } from './workspace.js';
export { CHEATS, CONFORMANCE_BASE_FILES } from './workspace-cheats.js';
export type { CheatCase } from './workspace-cheats.js';
export { describeAttemptLedgerConformance } from './attempt-ledger.js';
export type { AttemptLedgerSubject } from './attempt-ledger.js';
export { describeKillSwitchConformance } from './kill-switch.js';
export type { KillSwitchSubject } from './kill-switch.js';
export { describeStateWriterConformance, sampleTickRecord } from './state-writer.js';
export type { StateWriterConformanceOptions, StateWriterSetup, StateWriterSubject } from './state-writer.js';
export { describeCommandRunnerConformance } from './command-runner.js';
export type { CommandRunnerConformanceOptions, CommandRunnerSetup } from './command-runner.js';
export { describeDiscoveryConformance, discoveryPlan } from './discovery.js';
export type { DiscoveryConformanceOptions, DiscoverySubject, ScriptedProbe, ScriptedProbeRun } from './discovery.js';
export { describeItemLeasesConformance } from './item-leases.js';
export type { ItemLeasesConformanceOptions, ItemLeasesSubject } from './item-leases.js';
export { describeLoopLeasesConformance } from './loop-leases.js';
export type { FencedLoopLease, LoopLeasesConformanceOptions, LoopLeasesSubject } from './loop-leases.js';
export { describeOutcomeStoreConformance, sampleProposal } from './outcome-store.js';
export type { OutcomeStoreConformanceOptions, OutcomeStoreSubject } from './outcome-store.js';
