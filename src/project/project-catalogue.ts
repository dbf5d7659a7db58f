/**
 * The pattern catalogue a project sees: our registry.yaml, with the
 * project's own registry.yaml entries overriding ours by id and adding new
 * ones after them.
 */
import type { Pattern } from '../core/config/schemas.js';

export type PatternSource = 'catalogue' | 'project';

export interface MergedCatalogue {
  patterns: Pattern[];
  patternSource: Record<string, PatternSource>;
}

/**
 * Merges the catalogue with a project's registry entries (project wins by id).
 *
 * @example
 * ```ts
 * mergeCatalogue(ours, [{ ...ours[0], cadence: '2h' }]).patternSource[ours[0].id]; // → 'project'
 * ```
 */
export function mergeCatalogue(catalogue: readonly Pattern[], project: readonly Pattern[] | null): MergedCatalogue {
  const byId = new Map(project?.map((pattern) => [pattern.id, pattern]) ?? []);
  const patternSource: Record<string, PatternSource> = {};
  const patterns: Pattern[] = [];
  for (const pattern of catalogue) {
    const override = byId.get(pattern.id);
    patterns.push(override ?? pattern);
    patternSource[pattern.id] = override ? 'project' : 'catalogue';
  }
  for (const pattern of project ?? []) {
    if (pattern.id in patternSource) continue;
    patterns.push(pattern);
    patternSource[pattern.id] = 'project';
  }
  return { patterns, patternSource };
}
