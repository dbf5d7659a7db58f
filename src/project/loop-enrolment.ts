/**
 * Which loops a repository opted into, and the refusal for one it did not.
 * Catalogue loops never enrol themselves: a state file or ledger a tick
 * created is not configuration, and a real tick of an unconfigured loop is
 * refused (exit 3) with the ways to configure it. A dry run needs no opt-in.
 */
import { join } from 'node:path';
import type { Diagnostic } from '../core/config/diagnostics.js';
import { onlyRuntimeContent } from '../core/state/runtime-owned.js';
import { pathExists, readOptionalText } from './project-files.js';

/** The names among `stateNames` whose file exists at `root` and holds something loop-runtime did not write. */
export async function configuredStateFiles(root: string, stateNames: readonly string[]): Promise<Set<string>> {
  const found = await Promise.all(
    stateNames.map(async (name) => {
      const path = join(root, name);
      if (!(await pathExists(path))) return null;
      const text = await readOptionalText(path);
      // Unreadable (a directory, no permission): someone put it there; count it.
      return text !== null && onlyRuntimeContent(text) ? null : name;
    }),
  );
  return new Set(found.filter((name): name is string => name !== null));
}

/**
 * The config error for a real tick of a loop the repository has not
 * configured, or null when it is configured (or not a known pattern: that is
 * resolvePlan's error to report).
 *
 * @example
 * ```ts
 * notConfiguredIssue({ configuredLoops: ['daily-triage'], patterns }, 'ci-sweeper');
 * // → { code: 'LOOP_NOT_CONFIGURED', message: 'loop "ci-sweeper" is not configured in this repository …', fix: 'add … ' }
 * ```
 */
export function notConfiguredIssue(project: { configuredLoops: readonly string[]; patterns: ReadonlyArray<{ id: string }> }, id: string): Diagnostic | null {
  if (project.configuredLoops.includes(id) || !project.patterns.some((pattern) => pattern.id === id)) return null;
  const configured = project.configuredLoops.length > 0 ? ` Configured here: ${project.configuredLoops.join(', ')}.` : ' No loop is configured here yet.';
  return {
    severity: 'error',
    code: 'LOOP_NOT_CONFIGURED',
    file: 'LOOP.md',
    line: 0,
    column: 0,
    path: `loop-runtime.loops.${id}`,
    message: `loop "${id}" is not configured in this repository, and a real tick never enrols a loop by itself.${configured}`,
    fix:
      `opt in explicitly: add "${id}: {}" under "loops:" in the "loop-runtime:" front matter of LOOP.md ` +
      `(or create loops/${id}/LOOP.md, or list it in the project's registry.yaml); ` +
      `to rehearse without opting in, add --dry-run.`,
  };
}
