/**
 * zod schemas for the events `claude -p --output-format stream-json --verbose
 * --include-partial-messages` prints, one JSON object per line. Shapes were
 * taken from the real CLI (2.1.x); objects are loose because the CLI adds
 * fields between versions.
 */
import * as z from 'zod';

export const AnthropicUsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
});

export const SystemEventSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.string(),
  session_id: z.string().optional(),
  model: z.string().optional(),
  tools: z.array(z.string()).optional(),
});

const ContentBlockSchema = z.looseObject({ type: z.string(), text: z.string().optional(), name: z.string().optional(), input: z.unknown().optional() });

export const AssistantEventSchema = z.looseObject({
  type: z.literal('assistant'),
  message: z.looseObject({
    id: z.string(),
    model: z.string().optional(),
    content: z.array(ContentBlockSchema).default([]),
    usage: AnthropicUsageSchema.nullish(),
  }),
  parent_tool_use_id: z.string().nullish(),
  /** Set on synthetic messages for API failures, e.g. "authentication_failed", "server_error". */
  error: z.string().optional(),
});

export const UserEventSchema = z.looseObject({ type: z.literal('user'), message: z.looseObject({ content: z.unknown() }) });

/** Raw Messages-API stream events, forwarded when --include-partial-messages is on. */
export const PartialStreamEventSchema = z.looseObject({
  type: z.literal('stream_event'),
  event: z.looseObject({
    type: z.string(),
    message: z.looseObject({ id: z.string(), usage: AnthropicUsageSchema.nullish() }).optional(),
    usage: AnthropicUsageSchema.nullish(),
  }),
  parent_tool_use_id: z.string().nullish(),
});

export const PermissionDenialSchema = z.looseObject({ tool_name: z.string(), tool_use_id: z.string().optional(), tool_input: z.unknown().optional() });

export const ResultEventSchema = z.looseObject({
  type: z.literal('result'),
  subtype: z.string(),
  is_error: z.boolean(),
  result: z.string().optional(),
  num_turns: z.number().optional(),
  total_cost_usd: z.number().nullish(),
  usage: AnthropicUsageSchema.nullish(),
  permission_denials: z.array(PermissionDenialSchema).default([]),
  terminal_reason: z.string().nullish(),
  api_error_status: z.number().nullish(),
  stop_reason: z.string().nullish(),
  errors: z.array(z.string()).optional(),
  session_id: z.string().optional(),
});

export const ClaudeStreamEventSchema = z.union([
  SystemEventSchema,
  AssistantEventSchema,
  UserEventSchema,
  PartialStreamEventSchema,
  ResultEventSchema,
]);

export type ClaudeStreamEvent = z.infer<typeof ClaudeStreamEventSchema>;
export type ResultEvent = z.infer<typeof ResultEventSchema>;
export type AssistantEvent = z.infer<typeof AssistantEventSchema>;

/** Parses one stdout line; unknown or malformed lines give null (the CLI also prints other event types). */
export function parseStreamLine(line: string): ClaudeStreamEvent | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return null;
  }
  const parsed = ClaudeStreamEventSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
