/** Conformance suites (vitest) that hold every adapter of a port, and its memory twin, to one contract. */
export { describeBudgetLedgerConformance } from './budget-ledger.js';
export type { BudgetLedgerConformanceOptions, BudgetLedgerSubject } from './budget-ledger.js';
export { describeDeliveryConformance } from './delivery.js';
export type { DeliveryFault, DeliveryHarness } from './delivery.js';
