/**
 * gate.yaml loader with loop-gate's semantics: `version: 1`, `denylist:
 * string[]`, optional `maxFiles: number`, optional `autoMergeAllowlist:
 * string[]`. Other keys are warnings. Produces the plan's `GatePolicy`.
 */
import type { GatePolicy } from '../plan/execution-plan.js';
import { toLoadResult } from './diagnostics.js';
import type { Diagnostic, LoadResult } from './diagnostics.js';
import { GateConfigSchema } from './schemas.js';
import { closestMatch } from './suggest.js';
import { formatKeyPath, parseYamlSource, positionOf } from './yaml-source.js';
import { diagnosticsFromZodIssues } from './zod-diagnostics.js';

const GATE_KEYS = Object.keys(GateConfigSchema.shape);

/**
 * Loads a gate.yaml text into a `GatePolicy` whose `source` is `file`.
 *
 * @example
 * ```ts
 * loadGate('version: 1\ndenylist: [".env"]\nmaxFiles: 10\n', 'gate.yaml');
 * // → { ok: true, value: { source: 'gate.yaml', denylist: ['.env'], maxFiles: 10, autoMergeAllowlist: [] }, warnings: [] }
 * ```
 */
export function loadGate(text: string, file = 'gate.yaml'): LoadResult<GatePolicy> {
  const source = parseYamlSource(text, file);
  if (source.diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return toLoadResult<GatePolicy>(undefined, source.diagnostics);
  const diagnostics: Diagnostic[] = [...source.diagnostics];
  const value = source.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    diagnostics.push({
      severity: 'error',
      file,
      line: 1,
      column: 1,
      path: '',
      message: 'expected { version: 1, denylist: string[], ... }.',
      fix: 'start from loop-init\'s gate.yaml template: "version: 1" and a "denylist:" list.',
    });
    return toLoadResult<GatePolicy>(undefined, diagnostics);
  }
  const parsed = GateConfigSchema.safeParse(value);
  if (!parsed.success) {
    diagnostics.push(...diagnosticsFromZodIssues(parsed.error.issues, { source, schema: GateConfigSchema, prefix: [], severity: 'error' }));
  }
  for (const key of Object.keys(value)) {
    if (GATE_KEYS.includes(key)) continue;
    const suggestion = closestMatch(key, GATE_KEYS);
    diagnostics.push({
      severity: 'warning',
      file,
      ...positionOf(source, [key]),
      path: formatKeyPath([key]),
      message: `unknown field ${JSON.stringify(key)} is ignored by loop-gate and loop-runtime.`,
      fix: suggestion ? `did you mean "${suggestion}"? Otherwise remove it.` : 'remove it if it is a typo.',
    });
  }
  if (!parsed.success) return toLoadResult<GatePolicy>(undefined, diagnostics);
  const policy: GatePolicy = {
    source: file,
    denylist: [...parsed.data.denylist],
    maxFiles: parsed.data.maxFiles ?? null,
    autoMergeAllowlist: [...(parsed.data.autoMergeAllowlist ?? [])],
  };
  return toLoadResult(policy, diagnostics);
}
