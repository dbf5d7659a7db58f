/** The Gemini CLI backend: the real `gemini` CLI, headless, with per-role tool allowlists, an isolated home and a usage meter. */
import * as z from 'zod';
import { LoopRuntimeError } from '../../src/core/errors.js';
import type { AgentBackend } from '../../src/core/ports/index.js';
import { createGeminiCliBackend } from './create-gemini-backend.js';
import { ContainmentSettingsShape } from '../shared/containment-settings.js';

export { createGeminiCliBackend, type GeminiCliBackendSettings } from './create-gemini-backend.js';
export { toGeminiArgs, toGeminiEnv, toGeminiSettings, toGeminiToolPolicy, GEMINI_CREDENTIAL_VARIABLES, type GeminiToolPolicy } from './to-gemini-args.js';
export { parseGeminiLine, usageFromStats, GeminiEventSchema, GEMINI_EXIT_CODES, type GeminiEvent } from './gemini-events.js';

const PriceSchema = z.object({ input: z.number(), output: z.number(), cacheRead: z.number().optional(), cacheWrite: z.number().optional() });

/** The loop's `backend:` settings for gemini-cli; unknown keys are ignored. */
export const GeminiCliSettingsSchema = z.object({
  binary: z.string().optional(),
  model: z.string().optional(),
  maxTurns: z.number().int().positive().optional(),
  home: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  passEnv: z.array(z.string()).optional(),
  baseUrl: z.string().optional(),
  authType: z.string().optional(),
  allowBash: z.boolean().optional(),
  timeoutMs: z.number().int().positive().optional(),
  killGraceMs: z.number().int().nonnegative().optional(),
  prices: z.record(z.string(), PriceSchema).optional(),
  projectRoot: z.string().optional(),
  extraArgs: z.array(z.string()).optional(),
  ...ContainmentSettingsShape,
});

/**
 * The registry's entry point.
 *
 * @example
 * ```ts
 * const backend = await createBackend({ model: 'gemini-2.5-pro' }, { root: '/repo' });
 * ```
 */
export async function createBackend(settings: Record<string, unknown>, context: { root: string }): Promise<AgentBackend> {
  const parsed = GeminiCliSettingsSchema.safeParse(settings);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(settings)'}: ${issue.message}`).join('; ');
    throw new LoopRuntimeError('CONFIG_INVALID', `The gemini-cli backend's settings are not valid: ${problems}.`, {
      fix: 'see the Gemini CLI row of the README\'s backend table for the settings and their types.',
    });
  }
  return createGeminiCliBackend({ projectRoot: context.root, ...parsed.data });
}
