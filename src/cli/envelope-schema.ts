/** The zod schema of the `--json` envelope (envelope.ts), for readers of it: `ci summary` and the tests. */
import * as z from 'zod';
import { ENVELOPE_VERSION } from './envelope.js';

const ErrorSchema = z.object({ code: z.string().min(1), message: z.string().min(1), fix: z.string().min(1).optional() }).loose();

/** The envelope's shape. */
export const EnvelopeSchema = z.discriminatedUnion('ok', [
  z.object({ version: z.literal(ENVELOPE_VERSION), ok: z.literal(true), command: z.string().min(1), data: z.unknown() }).strict(),
  z.object({ version: z.literal(ENVELOPE_VERSION), ok: z.literal(false), command: z.string().min(1), error: ErrorSchema, data: z.unknown().optional() }).strict(),
]);

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
