/**
 * zod schemas for the events `gemini -p --output-format stream-json` prints,
 * one JSON object per line (shapes from the real CLI 0.61): `init`,
 * `message` (assistant text arrives as `delta: true` pieces), `tool_use`,
 * `tool_result`, `error` (warnings and errors) and the final `result` with
 * `status` and the session's token `stats`.
 */
import * as z from 'zod';
import type { Usage } from '../../src/core/ports/index.js';

export const GeminiStatsSchema = z.looseObject({
  total_tokens: z.number().nullish(),
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cached: z.number().nullish(),
  input: z.number().nullish(),
  tool_calls: z.number().nullish(),
});

export const GeminiResultEventSchema = z.looseObject({
  type: z.literal('result'),
  status: z.string(),
  error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }).nullish(),
  stats: GeminiStatsSchema.nullish(),
});

export const GeminiEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('init'), model: z.string().optional(), session_id: z.string().optional() }),
  z.looseObject({ type: z.literal('message'), role: z.string(), content: z.string().default(''), delta: z.boolean().optional() }),
  z.looseObject({ type: z.literal('tool_use'), tool_name: z.string(), parameters: z.unknown().optional() }),
  z.looseObject({ type: z.literal('tool_result'), status: z.string().optional(), output: z.string().optional() }),
  z.looseObject({ type: z.literal('error'), severity: z.string().optional(), message: z.string().default('') }),
  GeminiResultEventSchema,
]);

export type GeminiEvent = z.infer<typeof GeminiEventSchema>;
export type GeminiResultEvent = z.infer<typeof GeminiResultEventSchema>;

export function parseGeminiLine(line: string): GeminiEvent | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const parsed = GeminiEventSchema.safeParse(JSON.parse(trimmed));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const count = (value: number | null | undefined): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/** The result's stats: `input_tokens` includes cached tokens, `input` excludes them. */
export function usageFromStats(stats: z.infer<typeof GeminiStatsSchema> | null | undefined): Omit<Usage, 'costUsd'> {
  const cached = count(stats?.cached);
  const input = stats?.input !== undefined && stats?.input !== null ? count(stats.input) : Math.max(0, count(stats?.input_tokens) - cached);
  return { inputTokens: input, outputTokens: count(stats?.output_tokens), cacheReadTokens: cached, cacheWriteTokens: 0 };
}

/** Gemini CLI exit codes (packages/core FatalError subclasses) that decide a reason by themselves. */
export const GEMINI_EXIT_CODES = { auth: 41, input: 42, config: 52, turnLimit: 53, toolExecution: 54, untrustedWorkspace: 55, cancelled: 130 } as const;
