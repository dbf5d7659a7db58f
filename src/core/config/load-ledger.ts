/**
 * loop-ledger.json loader (loop-context's circuit-breaker ledger). Lenient:
 * unknown keys pass through; a level that is not L0–L3 is a warning.
 */
import { toLoadResult } from './diagnostics.js';
import type { Diagnostic, LoadResult } from './diagnostics.js';
import { LedgerSchema, LEVELS } from './schemas.js';
import type { Ledger } from './schemas.js';
import { parseYamlSource, positionOf } from './yaml-source.js';
import { diagnosticsFromZodIssues } from './zod-diagnostics.js';

function jsonErrorPosition(text: string, error: unknown): { line: number; column: number } {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  if (!match) return { line: 1, column: 1 };
  const before = text.slice(0, Number(match[1]));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

/**
 * Loads a loop-ledger.json text.
 *
 * @example
 * ```ts
 * loadLedger('{"pattern":"ci-sweeper","level":"L2","attempts":[]}', 'loop-ledger.json');
 * // → { ok: true, value: { pattern: 'ci-sweeper', level: 'L2', attempts: [] }, warnings: [] }
 * ```
 */
export function loadLedger(text: string, file = 'loop-ledger.json'): LoadResult<Ledger> {
  try {
    JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      issues: [
        {
          severity: 'error',
          file,
          ...jsonErrorPosition(text, error),
          path: '',
          message: `the file is not valid JSON (${error instanceof Error ? error.message : String(error)}).`,
          fix: 'repair the JSON, or delete the file to start a fresh ledger.',
        },
      ],
      warnings: [],
    };
  }
  // JSON is YAML; parsing it as YAML gives zod issue paths a line and column.
  const source = parseYamlSource(text, file);
  const diagnostics: Diagnostic[] = [];
  const parsed = LedgerSchema.safeParse(source.value);
  if (!parsed.success) {
    diagnostics.push(...diagnosticsFromZodIssues(parsed.error.issues, { source, schema: LedgerSchema, prefix: [], severity: 'error' }));
    return toLoadResult<Ledger>(undefined, diagnostics);
  }
  if (parsed.data.level !== undefined && !(LEVELS as readonly string[]).includes(parsed.data.level)) {
    diagnostics.push({
      severity: 'warning',
      file,
      ...positionOf(source, ['level']),
      path: 'level',
      message: `${JSON.stringify(parsed.data.level)} is not an autonomy level, so the ledger's level is ignored.`,
      fix: `use one of: ${LEVELS.join(', ')}.`,
    });
  }
  return toLoadResult(parsed.data, diagnostics);
}
