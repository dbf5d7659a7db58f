/**
 * registry.yaml loader: parse (with positions) → validate → cross-field rules.
 * Reports every problem at once. Unknown fields are warnings (the ecosystem
 * drifts ahead of any schema); duplicate ids and broken values are errors.
 */
import { CADENCE_FIX, safeParseCadence } from './cadence.js';
import { toLoadResult } from './diagnostics.js';
import type { Diagnostic, LoadResult } from './diagnostics.js';
import { CADENCE_PATTERN, CostSchema, KNOWN_TOOLS, PatternSchema, RegistrySchema } from './schemas.js';
import type { Pattern, Registry } from './schemas.js';
import { closestMatch } from './suggest.js';
import { parseYamlSource, positionOf, formatKeyPath } from './yaml-source.js';
import type { KeyPath, YamlSource } from './yaml-source.js';
import { diagnosticsFromZodIssues } from './zod-diagnostics.js';

const REGISTRY_KEYS = Object.keys(RegistrySchema.shape);
const PATTERN_KEYS = Object.keys(PatternSchema.shape);
const COST_KEYS = Object.keys(CostSchema.shape);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function unknownKeyWarnings(source: YamlSource, value: unknown, known: readonly string[], prefix: KeyPath): Diagnostic[] {
  if (!isRecord(value)) return [];
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const path = [...prefix, key];
      const suggestion = closestMatch(key, known);
      return {
        severity: 'warning' as const,
        file: source.file,
        ...positionOf(source, path),
        path: formatKeyPath(path),
        message: `unknown field ${JSON.stringify(key)} is ignored.`,
        fix: suggestion ? `did you mean "${suggestion}"? Otherwise remove it.` : 'remove it if it is a typo; loop-runtime does not read it.',
      };
    });
}

function crossFieldDiagnostics(source: YamlSource, root: unknown): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (!isRecord(root)) return diagnostics;
  diagnostics.push(...unknownKeyWarnings(source, root, REGISTRY_KEYS, []));
  const patterns = Array.isArray(root.patterns) ? root.patterns : [];
  const firstIndexById = new Map<string, number>();
  patterns.forEach((pattern, index) => {
    if (!isRecord(pattern)) return;
    diagnostics.push(...unknownKeyWarnings(source, pattern, PATTERN_KEYS, ['patterns', index]));
    diagnostics.push(...unknownKeyWarnings(source, pattern.cost, COST_KEYS, ['patterns', index, 'cost']));
    if (typeof pattern.id === 'string') {
      const first = firstIndexById.get(pattern.id);
      if (first === undefined) firstIndexById.set(pattern.id, index);
      else {
        const path = ['patterns', index, 'id'];
        const firstLine = positionOf(source, ['patterns', first, 'id']).line;
        diagnostics.push({
          severity: 'error',
          file: source.file,
          ...positionOf(source, path),
          path: formatKeyPath(path),
          message: `id ${JSON.stringify(pattern.id)} is already used by patterns[${first}] (line ${firstLine}); ids must be unique.`,
          fix: 'rename one of the two patterns or remove the duplicate entry.',
        });
      }
    }
    if (typeof pattern.cadence === 'string' && CADENCE_PATTERN.test(pattern.cadence) && safeParseCadence(pattern.cadence) === null) {
      const path = ['patterns', index, 'cadence'];
      diagnostics.push({
        severity: 'error',
        file: source.file,
        ...positionOf(source, path),
        path: formatKeyPath(path),
        message: `${JSON.stringify(pattern.cadence)} has a zero interval, so the loop would never wait.`,
        fix: CADENCE_FIX,
      });
    }
    if (Array.isArray(pattern.tools)) {
      pattern.tools.forEach((tool, toolIndex) => {
        if (typeof tool !== 'string' || (KNOWN_TOOLS as readonly string[]).includes(tool)) return;
        const path = ['patterns', index, 'tools', toolIndex];
        diagnostics.push({
          severity: 'warning',
          file: source.file,
          ...positionOf(source, path),
          path: formatKeyPath(path),
          message: `unknown tool ${JSON.stringify(tool)}.`,
          fix: `use one of: ${KNOWN_TOOLS.join(', ')} (unknown tools are ignored).`,
        });
      });
    }
  });
  return diagnostics;
}

export interface RegistryLoadOptions {
  /**
   * Patterns an entry with the same id overrides field by field (a project's registry over our catalogue): such an
   * entry may name only the fields it changes; `cost` is merged key by key. Entries with a new id are whole patterns.
   */
  base?: readonly Pattern[];
}

/** The registry with each entry whose id is in `base` completed from it; positions stay those of the written keys. */
function overBase(root: Record<string, unknown>, base: readonly Pattern[]): Record<string, unknown> {
  if (!Array.isArray(root.patterns)) return root;
  const byId = new Map(base.map((pattern) => [pattern.id, pattern]));
  const patterns = root.patterns.map((entry: unknown) => {
    const under = isRecord(entry) && typeof entry.id === 'string' ? byId.get(entry.id) : undefined;
    if (!under || !isRecord(entry)) return entry;
    const cost = isRecord(entry.cost) && under.cost ? { ...under.cost, ...entry.cost } : (entry.cost ?? under.cost);
    return { ...under, ...entry, ...(cost === undefined ? {} : { cost }) };
  });
  return { ...root, patterns };
}

/**
 * Loads a registry.yaml text.
 *
 * @example
 * ```ts
 * const result = loadRegistry(text, 'registry.yaml');
 * if (!result.ok) console.error(result.issues.map(formatDiagnostic).join('\n'));
 * ```
 */
export function loadRegistry(text: string, file = 'registry.yaml', options: RegistryLoadOptions = {}): LoadResult<Registry> {
  const source = parseYamlSource(text, file);
  if (source.diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return toLoadResult<Registry>(undefined, source.diagnostics);
  const diagnostics: Diagnostic[] = [...source.diagnostics];
  if (!isRecord(source.value)) {
    diagnostics.push({
      severity: 'error',
      file,
      line: 1,
      column: 1,
      path: '',
      message: 'the file has no top-level "patterns:" list.',
      fix: 'start the file with "patterns:" followed by a list of pattern entries.',
    });
    return toLoadResult<Registry>(undefined, diagnostics);
  }
  const parsed = RegistrySchema.safeParse(options.base ? overBase(source.value, options.base) : source.value);
  if (!parsed.success) {
    diagnostics.push(...diagnosticsFromZodIssues(parsed.error.issues, { source, schema: RegistrySchema, prefix: [], severity: 'error' }));
  }
  diagnostics.push(...crossFieldDiagnostics(source, source.value));
  return toLoadResult(parsed.success ? parsed.data : undefined, diagnostics);
}
