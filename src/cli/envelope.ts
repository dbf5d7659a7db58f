/**
 * The one `--json` envelope every command prints (built only in `main.ts`):
 *
 *   { "version": 1, "ok": true,  "command": "status", "data": … }
 *   { "version": 1, "ok": false, "command": "run", "error": { "code", "message", "fix"? }, "data"?: … }
 *
 * `ok` is true exactly when the process exits 0. A command that did its work but ends non-zero (a failed tick, a
 * halt, a replay that differs) keeps its result in `data` and gets an `error` named after the exit code, so a
 * script reads one field, never prose. The version rule: within a version fields are added, never renamed or
 * removed; a rename is version 2.
 */
import { z } from 'zod';
import { ExitCode } from '../core/errors.js';
import type { CliError } from './command.js';

export const ENVELOPE_VERSION = 1;

const ErrorSchema = z.object({ code: z.string().min(1), message: z.string().min(1), fix: z.string().min(1).optional() }).loose();

/** The envelope's shape, for tests and for readers of `--json` output (`ci summary`). */
export const EnvelopeSchema = z.discriminatedUnion('ok', [
  z.object({ version: z.literal(ENVELOPE_VERSION), ok: z.literal(true), command: z.string().min(1), data: z.unknown() }).strict(),
  z.object({ version: z.literal(ENVELOPE_VERSION), ok: z.literal(false), command: z.string().min(1), error: ErrorSchema, data: z.unknown().optional() }).strict(),
]);
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

/**
 * What a reader of a command's `--json` output acts on: `data` when the command produced a result (also on a
 * non-zero exit: a halted run's ticks), else `{ error }` (the command failed before doing its work). Output of a
 * CLI older than the envelope (a bare object) passes through, so `ci summary` reads either.
 */
export function payloadOf(output: unknown): unknown {
  const parsed = EnvelopeSchema.safeParse(output);
  if (!parsed.success) return output;
  if (parsed.data.ok) return parsed.data.data;
  return parsed.data.data ?? { error: parsed.data.error };
}
