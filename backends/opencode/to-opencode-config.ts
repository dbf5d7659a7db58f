/**
 * Pure mapping from a role call to what `opencode run` needs: one generated
 * agent per role (our system prompt, its permissions, its tools, its step
 * limit) in a config file inside the isolated home, the CLI arguments, and
 * the child's environment. The prompt goes to stdin.
 */
import type { AgentRole, RolePermissions } from '../../src/core/ports/index.js';
import { DEFAULT_ENV_ALLOWLIST, scrubEnv } from '../../src/core/security/scrub-env.js';

type Permission = 'allow' | 'deny';

/** Tools a loop never needs from opencode: sub-agents, skills, todo lists, the network. */
const ALWAYS_OFF = ['task', 'skill', 'todowrite', 'todoread', 'webfetch', 'websearch', 'codesearch', 'question'];
const WRITE_TOOLS = ['write', 'edit', 'patch', 'apply_patch', 'multiedit'];

export interface OpenCodePolicy {
  /** The agent's `permission` block: what opencode itself enforces. */
  permission: { edit: Permission; bash: Permission; webfetch: Permission; external_directory: Permission; doom_loop: Permission };
  /** The agent's `tools` switches: tools the model is never offered. */
  tools: Record<string, boolean>;
}

/**
 * Read-only roles get read, glob, grep and list only; the implementer also
 * gets opencode's edit/write tools, and bash only when `allowBash` is set
 * (opencode's bash does not run through our sandboxed CommandRunner). Paths
 * outside the working directory are denied (`external_directory`).
 *
 * @example
 * ```ts
 * toOpenCodePolicy('check', { write: false, execute: false }, false).permission.edit; // 'deny'
 * ```
 */
export function toOpenCodePolicy(role: AgentRole, permissions: RolePermissions, allowBash: boolean): OpenCodePolicy {
  const writes = role === 'implement' && permissions.write;
  const bash = writes && permissions.execute && allowBash;
  const tools: Record<string, boolean> = {};
  for (const tool of ALWAYS_OFF) tools[tool] = false;
  for (const tool of WRITE_TOOLS) tools[tool] = writes;
  tools['bash'] = bash;
  return {
    permission: { edit: writes ? 'allow' : 'deny', bash: bash ? 'allow' : 'deny', webfetch: 'deny', external_directory: 'deny', doom_loop: 'deny' },
    tools,
  };
}

export interface OpenCodeConfigInput {
  role: AgentRole;
  permissions: RolePermissions;
  systemPrompt: string;
  /** `provider/model`; omitted means opencode's own default. */
  model?: string;
  maxTurns: number;
  allowBash?: boolean;
  /** The user's `provider` block (custom providers, baseURL overrides), passed through. */
  provider?: Record<string, unknown>;
}

/** Where opencode's built-in providers send model calls when the provider block names no baseURL. */
const DEFAULT_PROVIDER_ENDPOINTS: Record<string, string> = {
  anthropic: 'https://api.anthropic.com/v1',
  openai: 'https://api.openai.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
  openrouter: 'https://openrouter.ai/api/v1',
  groq: 'https://api.groq.com/openai/v1',
  mistral: 'https://api.mistral.ai/v1',
  deepseek: 'https://api.deepseek.com/v1',
  xai: 'https://api.x.ai/v1',
};

/**
 * The model endpoint of the configured `provider/model`: the provider block's
 * `options.baseURL`, else the built-in provider's. Every call then goes
 * through the metering proxy in front of it.
 *
 * @example
 * ```ts
 * providerEndpoint('fake/m', { fake: { options: { baseURL: 'http://127.0.0.1:4000/v1' } } }); // { ok: true, provider: 'fake', url: 'http://127.0.0.1:4000/v1' }
 * ```
 */
export function providerEndpoint(model: string | undefined, provider: Record<string, unknown> | undefined): { ok: true; provider: string; url: string } | { ok: false; message: string } {
  const id = model?.split('/')[0];
  if (!id || !model?.includes('/')) {
    return { ok: false, message: `The opencode backend needs its model as "provider/model" to meter and contain its model calls; got ${model === undefined ? 'none' : `"${model}"`}. To fix: set the backend's "model", e.g. "anthropic/claude-sonnet-4-5".` };
  }
  const block = provider?.[id] as { options?: { baseURL?: unknown } } | undefined;
  const url = typeof block?.options?.baseURL === 'string' ? block.options.baseURL : DEFAULT_PROVIDER_ENDPOINTS[id];
  if (!url) return { ok: false, message: `The opencode provider "${id}" has no known endpoint. To fix: set provider.${id}.options.baseURL in the backend's settings.` };
  return { ok: true, provider: id, url };
}

/** The provider block with the model provider's baseURL pointed at the proxy. */
export function withProviderBaseUrl(id: string, provider: Record<string, unknown> | undefined, baseUrl: string): Record<string, unknown> {
  const block = (provider?.[id] ?? {}) as { options?: Record<string, unknown> };
  return { ...(provider ?? {}), [id]: { ...block, options: { ...(block.options ?? {}), baseURL: baseUrl } } };
}

/** The agent name a role runs as. */
export const agentNameFor = (role: AgentRole): string => `loop-${role}`;

/** The whole opencode.json for one call. */
export function toOpenCodeConfig(input: OpenCodeConfigInput): Record<string, unknown> {
  const policy = toOpenCodePolicy(input.role, input.permissions, input.allowBash ?? false);
  return {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    snapshot: false,
    ...(input.model ? { model: input.model, small_model: input.model } : {}),
    ...(input.provider ? { provider: input.provider } : {}),
    permission: { edit: 'deny', bash: 'deny', webfetch: 'deny', external_directory: 'deny' },
    agent: {
      [agentNameFor(input.role)]: {
        mode: 'primary',
        description: `loop-runtime ${input.role} role`,
        prompt: input.systemPrompt,
        // Our own turn counter stops the run at maxTurns; opencode's limit is the backstop.
        steps: input.maxTurns + 1,
        permission: policy.permission,
        tools: policy.tools,
      },
    },
  };
}

export function toOpenCodeArgs(input: { role: AgentRole; model?: string; extraArgs?: string[] }): string[] {
  return [
    'run',
    '--format', 'json',
    '--pure',
    '--agent', agentNameFor(input.role),
    // An explicit title: opencode otherwise spends a model call generating one.
    '--title', `loop-runtime ${input.role}`,
    ...(input.model ? ['--model', input.model] : []),
    ...(input.extraArgs ?? []),
  ];
}

/** Provider credentials opencode reads from the environment; passed through the scrub by exact name. */
export const OPENCODE_CREDENTIAL_VARIABLES = [
  'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENROUTER_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY',
  'GROQ_API_KEY', 'MISTRAL_API_KEY', 'DEEPSEEK_API_KEY', 'XAI_API_KEY', 'OPENCODE_API_KEY',
];

export interface OpenCodeEnvInput {
  base: Readonly<Record<string, string | undefined>>;
  /** The isolated home of this call. */
  home: string;
  /** The generated config file. */
  configPath: string;
  /** More variables to pass by exact name. */
  passEnv?: readonly string[];
  env?: Record<string, string>;
}

/**
 * A scrubbed environment (the sandbox allowlist plus provider keys by exact
 * name) with HOME and the XDG directories inside the isolated home, the
 * project's own opencode.json ignored (a repository must not grant its agent
 * permissions), and update checks, model-list fetches, default plugins, LSP
 * downloads and sharing off.
 */
export function toOpenCodeEnv(input: OpenCodeEnvInput): Record<string, string> {
  const env = scrubEnv(input.base, [...DEFAULT_ENV_ALLOWLIST, ...OPENCODE_CREDENTIAL_VARIABLES, ...(input.passEnv ?? [])]);
  Object.assign(env, {
    HOME: input.home,
    XDG_CONFIG_HOME: `${input.home}/config`,
    XDG_DATA_HOME: `${input.home}/data`,
    XDG_CACHE_HOME: `${input.home}/cache`,
    XDG_STATE_HOME: `${input.home}/state`,
    OPENCODE_CONFIG: input.configPath,
    OPENCODE_DISABLE_PROJECT_CONFIG: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
  });
  Object.assign(env, input.env ?? {});
  return env;
}
