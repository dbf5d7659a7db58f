/** The run-log entry's zod schema (the public contract); run-log.ts reads lines with an equivalent check that needs no zod. */
import * as z from 'zod';

/**
 * A run-log entry as read back: liberal, because other tools and agents
 * append lines too. Unknown keys are kept.
 */
export const RunLogEntrySchema = z.looseObject({
  run_id: z.string(),
  pattern: z.string().optional(),
  duration_s: z.number().optional(),
  items_found: z.number().optional(),
  actions_taken: z.number().optional(),
  escalations: z.number().optional(),
  tokens_estimate: z.number().optional(),
  outcome: z.string().optional(),
  state: z.string().optional(),
  tick_id: z.string().optional(),
  level: z.string().optional(),
  kind: z.string().optional(),
  backend: z.string().optional(),
});
export type RunLogEntry = z.infer<typeof RunLogEntrySchema>;
