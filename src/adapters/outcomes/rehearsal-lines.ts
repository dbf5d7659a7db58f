/**
 * Which outcome lines are one loop's rehearsal: its proposals journalled by the mock backend and the observations of
 * those commits. One rule for every store (`OutcomeStore.removeRehearsal`: the outcomes file and the fleet's rows), so
 * `reset <id> --mock` removes the same lines wherever they live. Level changes stay: a human or the autonomy policy
 * made them, whatever the ticks ran on.
 */
import { REHEARSAL_BACKEND } from '../../core/outcomes/rehearsal-backend.js';

/** A stored line as far as the rule reads it (unparsed lines are null and always kept). */
export interface LooseOutcomeLine {
  type?: unknown;
  pattern?: unknown;
  backend?: unknown;
  commit?: unknown;
}

/**
 * The positions of `patternId`'s rehearsal lines in `lines`.
 *
 * @example
 * ```ts
 * rehearsalLineIndexes([{ type: 'proposal', pattern: 'a', backend: 'mock', commit: 'c1' }, { type: 'observation', pattern: 'a', commit: 'c1' }], 'a');
 * // → Set { 0, 1 }
 * ```
 */
export function rehearsalLineIndexes(lines: ReadonlyArray<LooseOutcomeLine | null>, patternId: string): Set<number> {
  const ofLoop = (line: LooseOutcomeLine | null): line is LooseOutcomeLine => line !== null && line.pattern === patternId;
  const mockCommits = new Set(lines.filter(ofLoop).filter((line) => line.type === 'proposal' && line.backend === REHEARSAL_BACKEND).map((line) => line.commit));
  const indexes = new Set<number>();
  lines.forEach((line, index) => {
    if (ofLoop(line) && (line.type === 'proposal' || line.type === 'observation') && mockCommits.has(line.commit)) indexes.add(index);
  });
  return indexes;
}

/** A stored line read leniently: anything that is not a JSON object is null (kept as it is). */
export function looseOutcomeLine(text: string): LooseOutcomeLine | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as LooseOutcomeLine) : null;
  } catch {
    return null;
  }
}
