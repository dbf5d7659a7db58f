/**
 * `loop-runtime/helpers`: the pure rules the engine applies, for tools and adapters of your own: UTC budget days,
 * the gate, verification (test-report parsers, diff integrity, verdicts), secret redaction and environment scrubbing,
 * and the engine's small result helpers.
 *
 * @example
 * ```ts
 * import { checkGate, createRedactor, utcDay } from 'loop-runtime/helpers';
 * ```
 */
export { nextUtcMidnight, utcDay } from '../core/budget/index.js';
export * from '../core/gate/index.js';
export * from '../core/verify/index.js';
export * from '../core/security/index.js';
export { changedPaths, circuitState, countsFor, errorSignature, failedAttemptsOn, historyOf, pauseStatusOf, REPORT_DIR_ENV, runLogOutcome, toTickRecord } from '../core/engine/index.js';
