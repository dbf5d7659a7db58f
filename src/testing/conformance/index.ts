/**
 * Conformance suites: one per port, run by the real adapter and its memory
 * twin alike. They register vitest tests, so import them only from test files.
 */
export { describeBudgetLedgerConformance } from './budget-ledger.js';
export type { BudgetLedgerConformanceOptions, BudgetLedgerSubject } from './budget-ledger.js';
export { describeDeliveryConformance } from './delivery.js';
export type { DeliveryFault, DeliveryHarness } from './delivery.js';
export { describeWorkspaceConformance } from './workspace.js';
export type { MakeWorkspace, WorkspaceHarness } from './workspace.js';
export { CHEATS, CONFORMANCE_BASE_FILES } from './workspace-cheats.js';
export type { CheatCase } from './workspace-cheats.js';
