/**
 * zod schemas for the events `opencode run --format json` prints, one JSON
 * object per line (shapes taken from the real CLI 1.18): `step_start`,
 * `text` (a finished text part), `tool_use` (a finished tool call),
 * `step_finish` (the step's token counts and cost) and `error`. Usage is only
 * reported per finished step; objects are loose because the CLI adds fields.
 */
import * as z from 'zod';

const TokensSchema = z.looseObject({
  input: z.number().nullish(),
  output: z.number().nullish(),
  reasoning: z.number().nullish(),
  cache: z.looseObject({ read: z.number().nullish(), write: z.number().nullish() }).nullish(),
});

export const StepFinishEventSchema = z.looseObject({
  type: z.literal('step_finish'),
  part: z.looseObject({ reason: z.string().nullish(), tokens: TokensSchema.nullish(), cost: z.number().nullish() }),
});

export const TextEventSchema = z.looseObject({ type: z.literal('text'), part: z.looseObject({ text: z.string().default('') }) });

export const ToolUseEventSchema = z.looseObject({
  type: z.literal('tool_use'),
  part: z.looseObject({
    tool: z.string(),
    state: z.looseObject({ status: z.string(), input: z.unknown().optional(), error: z.string().optional() }),
  }),
});

export const ErrorEventSchema = z.looseObject({
  type: z.literal('error'),
  error: z.looseObject({
    name: z.string().optional(),
    data: z.looseObject({ message: z.string().optional(), statusCode: z.number().optional(), isRetryable: z.boolean().optional() }).optional(),
  }).optional(),
});

export const OpenCodeEventSchema = z.discriminatedUnion('type', [
  StepFinishEventSchema,
  TextEventSchema,
  ToolUseEventSchema,
  ErrorEventSchema,
  z.looseObject({ type: z.literal('step_start') }),
]);

export type OpenCodeEvent = z.infer<typeof OpenCodeEventSchema>;
export type OpenCodeErrorEvent = z.infer<typeof ErrorEventSchema>;

/** One event, or null for non-JSON lines and event types this version does not know. */
export function parseOpenCodeLine(line: string): OpenCodeEvent | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const parsed = OpenCodeEventSchema.safeParse(JSON.parse(trimmed));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const count = (value: number | null | undefined): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/**
 * Counts the steps (turns) and the CLI's own cost. Tokens are not counted
 * here: the metering proxy counts what the provider answered.
 */
export class OpenCodeUsageTracker {
  private cost = 0;
  /** Finished steps that ended asking for tools (the model wants another turn). */
  toolSteps = 0;
  steps = 0;

  observe(event: OpenCodeEvent): void {
    if (event.type !== 'step_finish') return;
    this.steps += 1;
    if (event.part.reason === 'tool-calls') this.toolSteps += 1;
    this.cost += count(event.part.cost);
  }

  /** The CLI's own cost, or null when it reported none (custom providers report 0). */
  reportedCost(): number | null {
    return this.cost > 0 ? Math.round(this.cost * 1e8) / 1e8 : null;
  }
}
