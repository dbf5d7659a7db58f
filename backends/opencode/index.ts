/** The OpenCode backend: the real `opencode` CLI, headless, with per-role agents and an isolated home. */
import * as z from 'zod';
import { LoopRuntimeError } from '../../src/core/errors.js';
import type { AgentBackend } from '../../src/core/ports/index.js';
import { createOpenCodeBackend } from './create-opencode-backend.js';
import { ContainmentSettingsShape } from '../shared/containment-settings.js';

export { createOpenCodeBackend, type OpenCodeBackendSettings } from './create-opencode-backend.js';
export { toOpenCodeArgs, toOpenCodeConfig, toOpenCodeEnv, providerEndpoint, withProviderBaseUrl, toOpenCodePolicy, agentNameFor, OPENCODE_CREDENTIAL_VARIABLES, type OpenCodePolicy } from './to-opencode-config.js';
export { parseOpenCodeLine, OpenCodeUsageTracker, OpenCodeEventSchema, type OpenCodeEvent } from './opencode-events.js';
export { mapCliResult, classifyCliError, type CliRunFacts } from './map-cli-result.js';

/**
 * The registry's entry point. Settings come from the loop's `backend:` block;
 * the project root is the cwd of triage.
 *
 * @example
 * ```ts
 * const backend = await createBackend({ model: 'anthropic/claude-sonnet-4-5' }, { root: '/repo' });
 * ```
 */
export async function createBackend(settings: Record<string, unknown>, context: { root: string }): Promise<AgentBackend> {
  const parsed = OpenCodeSettingsSchema.safeParse(settings);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(settings)'}: ${issue.message}`).join('; ');
    throw new LoopRuntimeError('CONFIG_INVALID', `The opencode backend's settings are not valid: ${problems}.`, {
      fix: 'see the OpenCode row of the README\'s backend table for the settings and their types.',
    });
  }
  return createOpenCodeBackend({ projectRoot: context.root, ...parsed.data });
}

const PriceSchema = z.object({ input: z.number(), output: z.number(), cacheRead: z.number().optional(), cacheWrite: z.number().optional() });

/** The loop's `backend:` settings for opencode; unknown keys are ignored (liberal where configs drift). */
export const OpenCodeSettingsSchema = z.object({
  binary: z.string().optional(),
  model: z.string().optional(),
  provider: z.record(z.string(), z.unknown()).optional(),
  maxTurns: z.number().int().positive().optional(),
  home: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  passEnv: z.array(z.string()).optional(),
  allowBash: z.boolean().optional(),
  timeoutMs: z.number().int().positive().optional(),
  killGraceMs: z.number().int().nonnegative().optional(),
  prices: z.record(z.string(), PriceSchema).optional(),
  projectRoot: z.string().optional(),
  extraArgs: z.array(z.string()).optional(),
  ...ContainmentSettingsShape,
});
