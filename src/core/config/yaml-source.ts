/**
 * YAML with positions: parses a document while keeping a line counter, so a
 * zod issue path (`['patterns', 2, 'cadence']`) can be turned back into the
 * line and column a human should look at. YAML syntax errors become
 * diagnostics instead of exceptions.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import type { Document, Node } from 'yaml';
import type { Diagnostic } from './diagnostics.js';

export type KeyPath = ReadonlyArray<PropertyKey>;

export interface YamlSource {
  /** The file name used in diagnostics. */
  file: string;
  document: Document.Parsed;
  lineCounter: LineCounter;
  /** Lines before the parsed text in the real file (front matter starts after `---`). */
  lineOffset: number;
  /** The document as plain JS (undefined when the syntax is broken). */
  value: unknown;
  /** Syntax errors (severity error) and YAML warnings (severity warning). */
  diagnostics: Diagnostic[];
}

export interface Position {
  line: number;
  column: number;
}

/**
 * Parses YAML text, keeping positions.
 *
 * @example
 * ```ts
 * const source = parseYamlSource('patterns:\n  - id: x\n', 'registry.yaml');
 * positionOf(source, ['patterns', 0, 'id']); // → { line: 2, column: 5 }
 * ```
 */
export function parseYamlSource(text: string, file: string, options: { lineOffset?: number } = {}): YamlSource {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const lineOffset = options.lineOffset ?? 0;
  const diagnostics: Diagnostic[] = [];
  for (const [severity, list] of [['error', document.errors], ['warning', document.warnings]] as const) {
    for (const problem of list) {
      const position = problem.linePos?.[0] ?? lineCounter.linePos(problem.pos[0]);
      diagnostics.push({
        severity,
        file,
        line: position.line + lineOffset,
        column: position.col,
        path: '',
        message: `YAML ${severity === 'error' ? 'syntax error' : 'warning'}: ${firstLine(problem.message)}.`.replace(/\.\.$/, '.'),
        fix:
          problem.code === 'DUPLICATE_KEY'
            ? 'keep one of the duplicated keys and remove the other.'
            : 'correct the YAML syntax here (check indentation, colons and quotes).',
        code: problem.code,
      });
    }
  }
  let value: unknown;
  if (document.errors.length === 0) {
    try {
      value = document.toJS({ maxAliasCount: 100 });
    } catch (error) {
      // Alias bombs and aliases to anchors that do not exist throw from toJS: a diagnostic at the alias, not a crash.
      diagnostics.push(aliasDiagnostic(document, lineCounter, file, lineOffset, error instanceof Error ? error.message : String(error)));
    }
  }
  return { file, document, lineCounter, lineOffset, value, diagnostics };
}

function aliasDiagnostic(document: Document.Parsed, lineCounter: LineCounter, file: string, lineOffset: number, message: string): Diagnostic {
  const unresolved = /Unresolved alias[^:]*: (.+)$/.exec(firstLine(message))?.[1];
  let at: number | undefined;
  visit(document, {
    Alias(_key, node) {
      if (at === undefined && (unresolved === undefined || node.source === unresolved)) at = node.range?.[0];
      return at === undefined ? undefined : visit.BREAK;
    },
  });
  const position = lineCounter.linePos(at ?? 0);
  return {
    severity: 'error',
    file,
    line: position.line + lineOffset,
    column: position.col,
    path: '',
    message: unresolved
      ? `YAML alias *${unresolved} refers to no anchor &${unresolved} defined before it.`
      : 'YAML aliases expand to too many nodes (more than 100 alias uses): this looks like an alias bomb, so the file is not read.',
    fix: unresolved ? `define &${unresolved} before this alias, or write the value out.` : 'write the values out instead of nesting aliases.',
    code: unresolved ? 'YAML_UNRESOLVED_ALIAS' : 'YAML_ALIAS_LIMIT',
  };
}

/** The yaml library's sentence without its own position (relative to the YAML text, not the file) or code frame. */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).trim().replace(/\s*at line \d+, column \d+:?$/, '');
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  if (typeof key === 'string' || typeof key === 'number') return String(key);
  return undefined;
}

/**
 * The position of the deepest node reachable along `path`. For a map entry
 * it is the key's position (where a reader's eye lands); when the path runs
 * past what exists (a missing key), it is the nearest existing parent.
 */
export function positionOf(source: YamlSource, path: KeyPath): Position {
  let node: unknown = source.document.contents;
  let offset = (node as Node | null)?.range?.[0] ?? 0;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => keyText(item.key) === String(segment));
      if (!pair) break;
      offset = (pair.key as Node | null)?.range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as Node | undefined;
      if (!item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
  }
  const position = source.lineCounter.linePos(offset);
  return { line: position.line + source.lineOffset, column: position.col };
}

/**
 * Renders a key path the way users read it.
 *
 * @example
 * ```ts
 * formatKeyPath(['patterns', 2, 'cadence']); // → 'patterns[2].cadence'
 * ```
 */
export function formatKeyPath(path: KeyPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(String(segment))) text += text ? `.${String(segment)}` : String(segment);
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}

/** Reads the plain value at `path` (undefined when absent). */
export function valueAt(value: unknown, path: KeyPath): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment as string];
  }
  return current;
}
