/**
 * Diagnostics: one config problem, located precisely enough to fix without
 * searching (file, line, column, key path) and phrased in three parts: what
 * happened, why, and "To fix: …".
 */

export type DiagnosticSeverity = 'error' | 'warning';

export interface Diagnostic {
  severity: DiagnosticSeverity;
  /** The file as the user knows it, e.g. `registry.yaml` or `loops/ci-sweeper/LOOP.md`. */
  file: string;
  /** 1-based; 0 when the problem concerns the whole file. */
  line: number;
  /** 1-based; 0 when the problem concerns the whole file. */
  column: number;
  /** The key path inside the file, e.g. `patterns[2].cadence`; empty for the whole document. */
  path: string;
  /** What happened and why, as one or two sentences ending with a period. */
  message: string;
  /** What to do about it, without the "To fix:" prefix. */
  fix: string;
  /** A stable code for machines when one applies (e.g. `PATTERN_NOT_FOUND`). */
  code?: string;
}

/**
 * Renders a diagnostic as one line.
 *
 * @example
 * ```ts
 * formatDiagnostic({ severity: 'error', file: 'registry.yaml', line: 14, column: 5,
 *   path: 'patterns[2].cadence', message: '"every day" is not a cadence.',
 *   fix: 'use 30m, 6h, 1d or a range like 5m-15m.' });
 * // → 'registry.yaml:14:5 patterns[2].cadence: "every day" is not a cadence. To fix: use 30m, 6h, 1d or a range like 5m-15m.'
 * ```
 */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const location = diagnostic.line > 0 ? `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}` : diagnostic.file;
  const where = diagnostic.path ? `${location} ${diagnostic.path}:` : `${location}:`;
  const fix = diagnostic.fix ? ` To fix: ${diagnostic.fix}` : '';
  return `${where} ${diagnostic.message}${fix}`;
}

/** True when any diagnostic is an error. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((diagnostic) => diagnostic.severity === 'error');
}

/** Orders diagnostics by file, then line, then column, so output is stable and reads top to bottom. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.path.localeCompare(b.path),
  );
}

/** The result of every loader: all problems at once, never the first one only. */
export type LoadResult<T> =
  | { ok: true; value: T; warnings: Diagnostic[] }
  | { ok: false; issues: Diagnostic[]; warnings: Diagnostic[] };

/**
 * Splits a list of diagnostics into a `LoadResult`: any error fails the load.
 * Errors go to `issues`, warnings to `warnings`.
 */
export function toLoadResult<T>(value: T | undefined, diagnostics: readonly Diagnostic[]): LoadResult<T> {
  const issues = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  const warnings = diagnostics.filter((diagnostic) => diagnostic.severity === 'warning');
  if (issues.length > 0 || value === undefined) return { ok: false, issues, warnings };
  return { ok: true, value, warnings };
}
