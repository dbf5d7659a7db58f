/** The backend whose ticks are rehearsals: followed for the one-open-proposal rule, never counted as results. Its own file: `status` reads it without loading zod. */
export const REHEARSAL_BACKEND = 'mock';
