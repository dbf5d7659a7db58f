/**
 * Turns zod issues into located, fixable diagnostics. zod says what is wrong
 * at which path; this module adds where (line:column via the YAML source),
 * the offending value, and a concrete "To fix".
 */
import type * as z from 'zod';
import { CADENCE_FIX } from './cadence.js';
import type { Diagnostic, DiagnosticSeverity } from './diagnostics.js';
import { closestMatch } from './suggest.js';
import { TOKEN_AMOUNT_FIX } from './token-amount.js';
import { formatKeyPath, positionOf, valueAt } from './yaml-source.js';
import type { KeyPath, YamlSource } from './yaml-source.js';

const FIELD_FIXES: Record<string, string> = {
  cadence: CADENCE_FIX,
  id: 'use lowercase letters, digits and dashes, starting with a letter, e.g. "daily-triage".',
  file: 'name the pattern document in lowercase kebab-case ending in .md, e.g. "daily-triage.md".',
  state: 'name the state file with letters, digits and dashes ending in .md, e.g. "STATE.md" or "ci-sweeper-state.md".',
  stateFile: 'use a relative path ending in .md, e.g. "STATE.md".',
  runLog: 'use a relative path ending in .md, e.g. "loop-run-log.md".',
  branchPrefix: 'use letters, digits, ".", "_", "-" and "/" only, e.g. "loop/daily-triage/".',
  version: 'set "version: 1".',
  dailyTokenCap: TOKEN_AMOUNT_FIX,
};

const EXPECTED_NAMES: Record<string, string> = {
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a mapping (key: value)',
  record: 'a mapping (key: value)',
};

/** Describes a value briefly for messages: strings quoted, lists and maps by kind. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list (${value.length} item${value.length === 1 ? '' : 's'})`;
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return value.length > 60 ? `${JSON.stringify(value.slice(0, 40))}… (${value.length} characters)` : JSON.stringify(value);
  return String(value);
}

function lastKey(path: KeyPath): string {
  for (let index = path.length - 1; index >= 0; index -= 1) {
    const segment = path[index];
    if (typeof segment === 'string') return segment;
  }
  return '';
}

/** Known keys of the (object) schema reached by `path`, for "did you mean" hints. */
export function knownKeysAt(schema: z.ZodType, path: KeyPath): string[] {
  let current: unknown = schema;
  const segments = [...path];
  for (;;) {
    const def = (current as { _zod?: { def?: Record<string, unknown> } })?._zod?.def;
    if (!def) return [];
    const type = def.type as string;
    if (type === 'optional' || type === 'default' || type === 'nullable' || type === 'prefault' || type === 'readonly') {
      current = def.innerType;
      continue;
    }
    if (segments.length === 0) return type === 'object' ? Object.keys(def.shape as object) : [];
    const segment = segments.shift();
    if (type === 'object') current = (def.shape as Record<string, unknown>)[String(segment)];
    else if (type === 'record') current = def.valueType;
    else if (type === 'array') current = def.element;
    else return [];
  }
}

interface IssueContext {
  source: YamlSource;
  schema: z.ZodType;
  /** Where the validated value sits inside the document, e.g. `['loop-runtime']`. */
  prefix: KeyPath;
  severity: DiagnosticSeverity;
}

function describeIssue(issue: z.core.$ZodIssue, value: unknown, key: string): { message: string; fix: string } {
  const fieldFix = FIELD_FIXES[key];
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED_NAMES[issue.expected] ?? issue.expected;
      if (value === undefined) {
        return { message: `this required field is missing.`, fix: `add "${key}:" with ${expected} here.` };
      }
      return { message: `expected ${expected}, found ${describeValue(value)}.`, fix: fieldFix ?? `give "${key}" ${expected}.` };
    }
    case 'invalid_format': {
      const custom = issue.message.startsWith('Invalid') ? `does not match ${issue.format === 'regex' ? (issue as { pattern?: string }).pattern : issue.format}` : issue.message;
      return { message: `${describeValue(value)} ${custom}.`, fix: fieldFix ?? 'correct the value so it matches the expected format.' };
    }
    case 'invalid_value': {
      const options = issue.values.map((option) => String(option));
      if (options.length === 1) {
        return { message: `must be ${options[0]}, found ${describeValue(value)}.`, fix: fieldFix ?? `set "${key}: ${options[0]}".` };
      }
      return { message: `${describeValue(value)} is not one of ${options.join(', ')}.`, fix: `use one of: ${options.join(', ')}.` };
    }
    case 'too_small': {
      const minimum = Number(issue.minimum);
      if (issue.origin === 'array') {
        return { message: `needs at least ${minimum} item${minimum === 1 ? '' : 's'}, found ${Array.isArray(value) ? value.length : 0}.`, fix: `list at least ${minimum} item${minimum === 1 ? '' : 's'} under "${key}".` };
      }
      if (issue.origin === 'string') {
        return { message: `${describeValue(value)} is shorter than ${minimum} characters.`, fix: fieldFix ?? `write at least ${minimum} characters.` };
      }
      return { message: `${describeValue(value)} is below the minimum of ${minimum}.`, fix: `use a value of at least ${minimum}.` };
    }
    case 'too_big': {
      const maximum = Number(issue.maximum);
      if (typeof value === 'string') return { message: `${describeValue(value)} is longer than ${maximum} characters${issue.message && !issue.message.startsWith('Too big') ? `: ${issue.message}` : ''}.`, fix: `shorten it to at most ${maximum} characters.` };
      return { message: `${describeValue(value)} is above the maximum of ${maximum}.`, fix: `use a value of at most ${maximum}.` };
    }
    case 'invalid_key':
      return { message: `${describeValue(key)} is not a valid key here.`, fix: FIELD_FIXES.id ?? '' };
    default:
      return { message: `${issue.message}.`.replace(/\.\.$/, '.'), fix: fieldFix ?? 'correct this value.' };
  }
}

/**
 * Converts zod issues into diagnostics located in `source`.
 * `unrecognized_keys` issues become one diagnostic per key, pointing at the key.
 */
export function diagnosticsFromZodIssues(issues: readonly z.core.$ZodIssue[], context: IssueContext): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const issue of issues) {
    const issuePath = issue.path as PropertyKey[];
    const path = [...context.prefix, ...issuePath];
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(context.schema, issuePath);
      for (const key of issue.keys) {
        const keyPath = [...path, key];
        const suggestion = closestMatch(key, known);
        diagnostics.push({
          severity: context.severity,
          file: context.source.file,
          ...positionOf(context.source, keyPath),
          path: formatKeyPath(keyPath),
          message: `${JSON.stringify(key)} is not a known setting.`,
          fix: suggestion
            ? `did you mean "${suggestion}"? Rename it, or remove it.`
            : `remove it; known settings here are: ${known.join(', ')}.`,
        });
      }
      continue;
    }
    const key = issue.code === 'invalid_key' ? String(issuePath[issuePath.length - 1] ?? '') : lastKey(path);
    const { message, fix } = describeIssue(issue, valueAt(context.source.value, path), key);
    diagnostics.push({
      severity: context.severity,
      file: context.source.file,
      ...positionOf(context.source, path),
      path: formatKeyPath(path),
      message,
      fix,
    });
  }
  return diagnostics;
}
