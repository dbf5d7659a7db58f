/**
 * The tail of a CI job's log, as the scheduled probe hands it to triage (src/core/schedule/default-probes.ts): the
 * last lines, each cut to a width, control characters (ANSI colours included) dropped, tabs as spaces. Pure;
 * redaction is the caller's (it knows the environment's secret values).
 */
import { FAILURE_LOG_LINES } from '../core/schedule/default-probes.js';

const LINE_WIDTH = 300;
// ESC [ … final byte: colours and cursor moves, then any remaining C0/C1 control character but the newline.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]/g;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * @example
 * ```ts
 * logTail('a\n\u001b[31mFAIL\u001b[0m b\n', 1); // → "FAIL b"
 * ```
 */
export function logTail(log: string, lines = FAILURE_LOG_LINES): string {
  const kept = log.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n').slice(-lines);
  return kept.map((line) => [...line.replace(ANSI, '').replace(/\t/g, ' ').replace(CONTROL, '')].slice(0, LINE_WIDTH).join('')).join('\n');
}
