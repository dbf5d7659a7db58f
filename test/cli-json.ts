/**
 * Reading a command's `--json` output in tests: the stdout must be one envelope (src/cli/envelope.ts) — a test
 * that reads it through here fails when a command prints anything else — and the test gets what a script acts
 * on: `data`, or `{ error }` when the command failed before producing any.
 */
import { EnvelopeSchema, payloadOf } from '../src/cli/envelope-schema.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as JSON.parse: each test names the shape it reads
export function cliJson(stdout: string): any {
  const parsed = EnvelopeSchema.safeParse(JSON.parse(stdout));
  if (!parsed.success) throw new Error(`not a --json envelope: ${parsed.error.message}\n${stdout.slice(0, 2000)}`);
  return payloadOf(parsed.data);
}

/** The whole envelope, validated (for tests of `ok`, `command` and `error`). */
export function cliEnvelope(stdout: string) {
  return EnvelopeSchema.parse(JSON.parse(stdout));
}
