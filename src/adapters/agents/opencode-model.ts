/**
 * The model an opencode loop runs. opencode with no model picks its own
 * default, which may be a hosted endpoint of its maker that the loop never
 * named; so with no `model:` configured, loop-runtime chooses one from the
 * provider whose key variable is set — an endpoint the user named by setting
 * its key. ANTHROPIC_API_KEY wins over OPENAI_API_KEY; with neither, there is
 * nothing to choose from and the tick is refused (precondition
 * `backend-model`, exit 3).
 *
 * One function decides for the precondition, `plan`/`status`/`doctor`, the run
 * summary and the backend the tick creates, so they cannot disagree. Reads the
 * given environment record only: no disk, no network.
 */
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';

/** A provider loop-runtime may choose a model from, in the order of preference. */
export interface OpenCodeKeyProvider {
  /** opencode's provider id, the part of the model before `/`. */
  provider: 'anthropic' | 'openai';
  /** The variable whose being set names this provider. */
  keyVariable: string;
  /** The variable that points the provider at another endpoint (a proxy, a gateway, a local fake). */
  baseUrlVariable: string;
  /** The model chosen for it: one opencode's bundled model list knows, so no model list is fetched. */
  model: string;
}

/**
 * Anthropic first: a key for it is the stronger signal for a coding agent, and
 * Claude Sonnet is the tier meant for agentic coding. Both ids are in the
 * model list bundled with opencode-ai 1.18 (models.dev), with their prices.
 */
export const OPENCODE_KEY_PROVIDERS: readonly OpenCodeKeyProvider[] = [
  { provider: 'anthropic', keyVariable: 'ANTHROPIC_API_KEY', baseUrlVariable: 'ANTHROPIC_BASE_URL', model: 'anthropic/claude-sonnet-5' },
  { provider: 'openai', keyVariable: 'OPENAI_API_KEY', baseUrlVariable: 'OPENAI_BASE_URL', model: 'openai/gpt-6-sol' },
];

export type OpenCodeModelChoice =
  /** `configured`: `model:` (or the backend's `model` setting); `key`: chosen from the provider whose key is set. */
  | { ok: true; model: string; from: 'configured' }
  | { ok: true; model: string; from: 'key'; provider: OpenCodeKeyProvider; reason: string }
  | { ok: false; message: string; fix: string };

type Env = Readonly<Record<string, string | undefined>>;
const isSet = (env: Env, name: string) => (env[name] ?? '') !== '';

/** The model a plan configures for its backend: the backend's `model` setting, else `model:` (the order the composition root merges them in). */
export function configuredModel(backend: ExecutionPlan['backend']): string | undefined {
  const setting = backend.options['model'];
  if (typeof setting === 'string' && setting !== '') return setting;
  return backend.model ?? undefined;
}

/**
 * The model opencode runs: the configured one, else the first provider of
 * `OPENCODE_KEY_PROVIDERS` whose key variable is set, else none (with the fix).
 *
 * @example
 * ```ts
 * chooseOpenCodeModel(undefined, { ANTHROPIC_API_KEY: 'sk-…', OPENAI_API_KEY: 'sk-…' });
 * // → { ok: true, model: 'anthropic/claude-sonnet-5', from: 'key', provider: {…},
 * //     reason: 'model anthropic/claude-sonnet-5 (ANTHROPIC_API_KEY is set, and wins over OPENAI_API_KEY; set model: to choose)' }
 * chooseOpenCodeModel('openai/gpt-4.1', {}); // → { ok: true, model: 'openai/gpt-4.1', from: 'configured' }
 * ```
 */
export function chooseOpenCodeModel(configured: string | undefined, env: Env): OpenCodeModelChoice {
  if (configured) return { ok: true, model: configured, from: 'configured' };
  const withKey = OPENCODE_KEY_PROVIDERS.filter((candidate) => isSet(env, candidate.keyVariable));
  const [chosen, ...others] = withKey;
  if (chosen) {
    const wins = others.length > 0 ? `, and wins over ${others.map((other) => other.keyVariable).join(', ')}` : '';
    return { ok: true, model: chosen.model, from: 'key', provider: chosen, reason: `model ${chosen.model} (${chosen.keyVariable} is set${wins}; set model: to choose)` };
  }
  const options = OPENCODE_KEY_PROVIDERS.map((candidate) => `${candidate.keyVariable} (runs ${candidate.model})`).join(' or ');
  return {
    ok: false,
    message: `no model is configured, and neither ${OPENCODE_KEY_PROVIDERS.map((candidate) => candidate.keyVariable).join(' nor ')} is set to choose one from (opencode's own default may be a hosted model loop-runtime was never told about).`,
    fix: `set ${options}, or set \`model: <provider>/<model>\` in the loop-runtime: block of LOOP.md with that provider's key variable set.`,
  };
}

/**
 * opencode's `provider` block for the model's provider: the endpoint from its
 * base-URL variable (ANTHROPIC_BASE_URL, OPENAI_BASE_URL) as `options.baseURL`,
 * merged under the user's own `provider` block (a `baseURL` there wins). The
 * isolated opencode never sees the host's variables, so without this a proxy
 * or gateway the user set would be bypassed. ANTHROPIC_BASE_URL follows
 * Anthropic's SDKs and Claude Code (no `/v1`; opencode's wants it), so `/v1`
 * is added; OPENAI_BASE_URL already ends in `/v1` by OpenAI's convention.
 *
 * @example
 * ```ts
 * openCodeProvider('anthropic/claude-sonnet-5', { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080' }, undefined);
 * // → { anthropic: { options: { baseURL: 'http://127.0.0.1:8080/v1' } } }
 * ```
 */
export function openCodeProvider(model: string | undefined, env: Env, userProvider: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const known = OPENCODE_KEY_PROVIDERS.find((candidate) => model?.startsWith(`${candidate.provider}/`));
  const raw = known ? env[known.baseUrlVariable] : undefined;
  if (!known || !raw) return userProvider;
  const trimmed = raw.replace(/\/+$/, '');
  const baseURL = known.provider === 'anthropic' && !trimmed.endsWith('/v1') ? `${trimmed}/v1` : trimmed;
  const own = (userProvider?.[known.provider] ?? {}) as { options?: Record<string, unknown> };
  return { ...userProvider, [known.provider]: { ...own, options: { baseURL, ...own.options } } };
}
