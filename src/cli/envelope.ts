/**
 * The one `--json` envelope every command prints (built only in `main.ts`):
 *
 *   { "version": 1, "ok": true,  "command": "status", "data": … }
 *   { "version": 1, "ok": false, "command": "run", "error": { "code", "message", "fix"? }, "data"?: … }
 *
 * `ok` is true exactly when the process exits 0. A command that did its work but ends non-zero (a failed tick, a
 * halt, a replay that differs) keeps its result in `data` and gets an `error` named after the exit code, so a
 * script reads one field, never prose. The version rule: within a version fields are added, never renamed or
 * removed; a rename is version 2. The zod schema that checks it is in envelope-schema.ts (loaded only by readers:
 * main.ts does not pay for zod at start-up).
 */
import { ExitCode } from '../core/errors.js';
import type { CliError } from './command.js';

export const ENVELOPE_VERSION = 1;

export type Envelope =
  | { version: typeof ENVELOPE_VERSION; ok: true; command: string; data: unknown }
  | { version: typeof ENVELOPE_VERSION; ok: false; command: string; error: CliError; data?: unknown };

const EXIT_CODE_NAMES: Record<number, string> = {
  [ExitCode.tickFailed]: 'TICK_FAILED',
  [ExitCode.halted]: 'HALTED',
  [ExitCode.configError]: 'CONFIG_ERROR',
  [ExitCode.leaseHeld]: 'LEASE_HELD',
  [ExitCode.needsHuman]: 'NEEDS_HUMAN',
  [ExitCode.replayDiffers]: 'REPLAY_DIFFERS',
};

/** The error a non-zero exit without an explicit one gets: its code names the exit code, its message the command's first line. */
export function errorForExitCode(exitCode: number, text: string): CliError {
  const code = EXIT_CODE_NAMES[exitCode] ?? (exitCode > 128 ? 'INTERRUPTED' : `EXIT_${exitCode}`);
  const firstLine = text.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((line) => line.trim()).find(Boolean);
  return { code, message: firstLine ?? `exit code ${exitCode}` };
}

/**
 * @example
 * ```ts
 * envelope({ command: 'status', exitCode: 0, data: { loops: [] } });
 * // → { version: 1, ok: true, command: 'status', data: { loops: [] } }
 * ```
 */
export function envelope(input: { command: string; exitCode: number; data?: unknown; error?: CliError; errorCode?: string | undefined; text?: string }): Envelope {
  const { command, exitCode, data } = input;
  if (exitCode === ExitCode.ok && !input.error) return { version: ENVELOPE_VERSION, ok: true, command, data: data ?? null };
  const named = errorForExitCode(exitCode, input.text ?? '');
  const error = input.error ?? (input.errorCode ? { ...named, code: input.errorCode } : named);
  return { version: ENVELOPE_VERSION, ok: false, command, error, ...(data === undefined ? {} : { data }) };
}
