/**
 * Conformance suites (vitest) for adapters: each port's contract, run against
 * the real adapter and its memory twin. Import from
 * `loop-runtime/testing/conformance` in a vitest test file.
 */
export { describeAttemptLedgerConformance } from './attempt-ledger.js';
export type { AttemptLedgerSubject } from './attempt-ledger.js';
export { describeKillSwitchConformance } from './kill-switch.js';
export type { KillSwitchSubject } from './kill-switch.js';
