/**
 * LOOP.md loader. LOOP.md is free-form markdown the agents read; our hard
 * settings live in an optional leading front-matter block under the key
 * `loop-runtime:`, validated strictly (a typo there is an error, because a
 * silently ignored `dailyTokenCap` is a budget overrun). Other front-matter
 * keys belong to other tools and are ignored. Line numbers are LOOP.md's.
 */
import { toLoadResult } from './diagnostics.js';
import type { Diagnostic, LoadResult } from './diagnostics.js';
import { RuntimeSettingsSchema } from './schemas.js';
import type { RuntimeSettings } from './schemas.js';
import { parseYamlSource } from './yaml-source.js';
import { diagnosticsFromZodIssues } from './zod-diagnostics.js';
import { splitFrontMatter } from './front-matter.js';

export { splitFrontMatter, type FrontMatterSplit } from './front-matter.js';

export const SETTINGS_KEY = 'loop-runtime';

export interface LoopDocument {
  /** The `loop-runtime:` block, validated; null when LOOP.md has none. */
  settings: RuntimeSettings | null;
  /** The markdown after the front matter (the prose agents read). */
  body: string;
  /** Whether a front-matter block was present at all. */
  hasFrontMatter: boolean;
}

/**
 * Loads LOOP.md: a missing front matter is fine (settings: null).
 *
 * @example
 * ```ts
 * const result = loadLoopMd('---\nloop-runtime:\n  level: L2\n---\n# Loops\n', 'LOOP.md');
 * // result.ok && result.value.settings?.level === 'L2'
 * ```
 */
export function loadLoopMd(text: string, file = 'LOOP.md'): LoadResult<LoopDocument> {
  const split = splitFrontMatter(text);
  if (split.yaml === null) {
    const stray = straySettingsLine(split.body);
    if (stray === 0) return { ok: true, value: { settings: null, body: split.body, hasFrontMatter: false }, warnings: [] };
    // Settings that lost their opening "---" would be ignored, and the loop would silently run at another level.
    return toLoadResult<LoopDocument>(undefined, [{
      severity: 'error',
      file,
      line: stray,
      column: 1,
      path: SETTINGS_KEY,
      message: `"${SETTINGS_KEY}:" is on line ${stray}, but LOOP.md does not start with "---", so it is not front matter and these settings would be ignored.`,
      fix: `put a line "---" at the very top of LOOP.md and another after the last settings line (or remove the "${SETTINGS_KEY}:" block).`,
    }]);
  }
  const diagnostics: Diagnostic[] = [];
  if (split.closingLine === 0) {
    diagnostics.push({
      severity: 'error',
      file,
      line: 1,
      column: 1,
      path: '',
      message: 'the front matter opened with "---" on line 1 is never closed.',
      fix: 'add a line "---" after the last front-matter line, before the markdown starts.',
    });
    return toLoadResult<LoopDocument>(undefined, diagnostics);
  }
  const source = parseYamlSource(split.yaml, file, { lineOffset: 1 });
  diagnostics.push(...source.diagnostics);
  if (source.diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return toLoadResult<LoopDocument>(undefined, diagnostics);
  const front = source.value;
  if (front !== null && front !== undefined && (typeof front !== 'object' || Array.isArray(front))) {
    diagnostics.push({
      severity: 'error',
      file,
      line: 2,
      column: 1,
      path: '',
      message: 'the front matter is not a mapping of keys to values.',
      fix: `write it as "key: value" lines, with our settings under "${SETTINGS_KEY}:".`,
    });
    return toLoadResult<LoopDocument>(undefined, diagnostics);
  }
  const record = (front ?? {}) as Record<string, unknown>;
  if (!(SETTINGS_KEY in record)) {
    return toLoadResult<LoopDocument>({ settings: null, body: split.body, hasFrontMatter: true }, diagnostics);
  }
  const parsed = RuntimeSettingsSchema.safeParse(record[SETTINGS_KEY] ?? {});
  if (!parsed.success) {
    diagnostics.push(
      ...diagnosticsFromZodIssues(parsed.error.issues, { source, schema: RuntimeSettingsSchema, prefix: [SETTINGS_KEY], severity: 'error' }),
    );
    return toLoadResult<LoopDocument>(undefined, diagnostics);
  }
  const settings = { ...(keepWrittenKeys(parsed.data, record[SETTINGS_KEY] ?? {}) as RuntimeSettings), version: parsed.data.version };
  return toLoadResult<LoopDocument>({ settings, body: split.body, hasFrontMatter: true }, diagnostics);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Drops object keys the user did not write. zod fills defaults even inside
 * partial objects (`delivery: {mode: push}` comes back with `remote: origin`),
 * and a filled-in default in a later settings layer would silently override
 * an earlier layer's explicit value. Lists are kept whole (probe defaults are wanted).
 */
function keepWrittenKeys(parsed: unknown, written: unknown): unknown {
  if (!isPlainObject(parsed) || !isPlainObject(written)) return parsed;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (key in written) kept[key] = keepWrittenKeys(value, written[key]);
  }
  return kept;
}

/** The 1-based line of a top-level `loop-runtime:` key in markdown that has no front matter (outside code fences), or 0. */
function straySettingsLine(markdown: string): number {
  let fenced = false;
  const lines = markdown.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && new RegExp(`^${SETTINGS_KEY}:\\s*(#.*)?$`).test(line)) return index + 1;
  }
  return 0;
}
