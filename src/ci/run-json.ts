/**
 * The one place `ci summary` reads `run --json` from: today's bare result, or the envelope
 * `{ version, ok, command, data | error }` the CLI's `--json` may wrap it in. Pure.
 */

/**
 * @example
 * ```ts
 * runResultOf({ version: 1, ok: true, command: 'run', data: { ticks: [] } }); // → { ticks: [] }
 * runResultOf({ ticks: [] }); // → { ticks: [] }
 * ```
 */
export function runResultOf(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return json;
  const record = json as Record<string, unknown>;
  const enveloped = typeof record.command === 'string' && typeof record.ok === 'boolean' && ('data' in record || 'error' in record);
  if (!enveloped) return json;
  return record.ok ? record.data : { error: record.error ?? { message: 'the command failed' } };
}
