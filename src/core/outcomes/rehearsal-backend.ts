/**
 * The backend whose ticks are rehearsals: followed for the one-open-proposal rule, never counted as results.
 * Its own module so a tick, which needs only the name, does not load the outcome record's zod schemas
 * (outcome-record.ts re-exports it).
 */
export const REHEARSAL_BACKEND = 'mock';
