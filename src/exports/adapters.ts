/**
 * `loop-runtime/adapters`: the file-backed adapters, for wiring a `LoopEngine` by hand. `createLoopRuntime` and
 * `openRuntime` (package root) wire all of them, with redaction and leases; use these only to compose ports
 * yourself. Memory twins are in `loop-runtime/testing`.
 *
 * @example
 * ```ts
 * import { FileStateWriter } from 'loop-runtime/adapters';
 * const state = new FileStateWriter({ root, stateFile: 'STATE.md', runLog: 'loop-run-log.md' });
 * ```
 */
export { FileStateWriter } from '../adapters/state-writer/file-state-writer.js';
export type { FileStateWriterOptions } from '../adapters/state-writer/file-state-writer.js';
export { FileBudgetLedger } from '../adapters/budget-ledger/file-budget-ledger.js';
export type { FileBudgetLedgerOptions } from '../adapters/budget-ledger/file-budget-ledger.js';
export { OverlayBudgetLedger } from '../adapters/budget-ledger/overlay-budget-ledger.js';
export { FileAttemptLedger } from '../adapters/attempt-ledger/file-attempt-ledger.js';
export type { FileAttemptLedgerOptions } from '../adapters/attempt-ledger/file-attempt-ledger.js';
export { FileKillSwitch } from '../adapters/kill-switch/kill-switch.js';
export type { FileKillSwitchOptions } from '../adapters/kill-switch/kill-switch.js';
export { systemClock } from '../adapters/clock/system-clock.js';
