/**
 * The backend whose ticks are rehearsals: followed for the one-open-proposal rule, never counted as results.
 * Its own module so a tick, which needs only the name, does not load the outcome record's zod schemas
 * (outcome-record.ts re-exports it).
 */
export const REHEARSAL_BACKEND = 'mock';

/**
 * Whether a kept change's branch is a rehearsal's: the mock backend's items are keyed `mock#<n>`, so its branches are
 * `loop/<id>/mock-…` (what `reset <id> --mock` removes). A human's decision on one is part of the rehearsal too.
 */
export function isRehearsalBranch(branch: string, patternId: string): boolean {
  return branch.startsWith(`loop/${patternId}/${REHEARSAL_BACKEND}-`);
}
