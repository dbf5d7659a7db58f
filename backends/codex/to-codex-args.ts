/**
 * Pure mapping from a role call to `codex exec` arguments, the isolated
 * CODEX_HOME's `config.toml` and its model catalog. Facts this relies on were
 * read from codex 0.169.0 (`codex exec --help`, `codex features list`) and its
 * source: a provider with `wire_api = "responses"` posts to `<base_url>/responses`;
 * `model_catalog_json` supplies a model's tools (`apply_patch_tool_type`,
 * `shell_type`), and without an entry the model gets no apply_patch tool.
 */
import type { AgentRole, RolePermissions } from '../../src/core/ports/index.js';

/** Provider id written into config.toml; every run uses only this provider. */
export const CODEX_PROVIDER_ID = 'loop-runtime';

/** Features a loop never needs: sub-agents, goals, images, browsers, plugins, hooks, memories. */
const ALWAYS_DISABLED = ['multi_agent', 'goals', 'image_generation', 'browser_use', 'computer_use', 'apps', 'plugins', 'hooks', 'memories'];

export type CodexSandboxMode = 'read-only' | 'workspace-write';

export interface CodexRolePolicy {
  sandbox: CodexSandboxMode;
  /** Codex's own shell tool (runs inside Codex's sandbox, not our CommandRunner). */
  shell: boolean;
}

/**
 * Triage and check run in `read-only` (apply_patch is refused by Codex); the
 * implementer in `workspace-write`, which confines writes to the `-C` directory
 * (the worktree). The shell is off unless the `shell` setting turns it on and
 * the role may execute: verification runs in our sandbox instead.
 *
 * @example
 * ```ts
 * codexRolePolicy('check', { write: false, execute: false }, true); // { sandbox: 'read-only', shell: false }
 * ```
 */
export function codexRolePolicy(role: AgentRole, permissions: RolePermissions, shell: boolean): CodexRolePolicy {
  const writes = role === 'implement' && permissions.write;
  return { sandbox: writes ? 'workspace-write' : 'read-only', shell: shell && (writes ? permissions.execute : true) };
}

export interface CodexArgsInput {
  role: AgentRole;
  permissions: RolePermissions;
  /** The directory Codex works in: the worktree, or the project root for triage. */
  cwd: string;
  model: string;
  /** Path of the model catalog JSON inside the isolated home. */
  catalogPath: string;
  shell?: boolean;
  /** Codex's own sandbox; false (`danger-full-access`) only when our bubblewrap contains it. Default true. */
  ownSandbox?: boolean;
  extraArgs?: readonly string[];
}

/** `-c key=value` with the value as a TOML string. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/**
 * @example
 * ```ts
 * toCodexArgs({ role: 'implement', permissions, cwd: '/wt', model: 'gpt-5.1-codex', catalogPath: '/h/models.json' });
 * // ['exec', '--json', '--ephemeral', ..., '--sandbox', 'workspace-write', '-C', '/wt', '-']
 * ```
 */
export function toCodexArgs(input: CodexArgsInput): string[] {
  const policy = codexRolePolicy(input.role, input.permissions, input.shell ?? false);
  const args = [
    'exec',
    '--json',
    '--ephemeral',
    '--skip-git-repo-check',
    '--ignore-rules',
    '--color', 'never',
    '--model', input.model,
    '--sandbox', input.ownSandbox === false ? 'danger-full-access' : policy.sandbox,
    '-C', input.cwd,
    '-c', `approval_policy=${tomlString('never')}`,
    '-c', `web_search=${tomlString('disabled')}`,
    '-c', `model_catalog_json=${tomlString(input.catalogPath)}`,
    '-c', 'sandbox_workspace_write.network_access=false',
  ];
  for (const feature of ALWAYS_DISABLED) args.push('--disable', feature);
  if (!policy.shell) args.push('--disable', 'shell_tool', '--disable', 'unified_exec');
  args.push(...(input.extraArgs ?? []), '-');
  return args;
}

export interface CodexConfigInput {
  /** The Responses API base URL Codex posts to (`<base_url>/responses`). */
  baseUrl: string;
  /** Name of the variable holding the API key (Codex reads it at request time). */
  apiKeyEnv: string;
  model: string;
  /** Codex's own retries per request / per stream; 0 lets our retry policy decide. */
  maxRetries: number;
  /** Our role prompt: trusted instructions, sent as a developer message. */
  developerInstructions: string;
}

/**
 * config.toml for the isolated CODEX_HOME: one provider, nothing else of the user's.
 *
 * @example
 * ```ts
 * toCodexConfigToml({ baseUrl: 'http://127.0.0.1:4000', apiKeyEnv: 'OPENAI_API_KEY', model: 'gpt-5.1-codex', maxRetries: 0 });
 * ```
 */
export function toCodexConfigToml(input: CodexConfigInput): string {
  return [
    `model = ${tomlString(input.model)}`,
    `model_provider = ${tomlString(CODEX_PROVIDER_ID)}`,
    'check_for_update_on_startup = false',
    // A JSON string is a valid TOML basic string (same escapes), so any prompt text round-trips.
    `developer_instructions = ${tomlString(input.developerInstructions)}`,
    '',
    `[model_providers.${CODEX_PROVIDER_ID}]`,
    `name = ${tomlString('loop-runtime')}`,
    `base_url = ${tomlString(input.baseUrl)}`,
    `wire_api = ${tomlString('responses')}`,
    `env_key = ${tomlString(input.apiKeyEnv)}`,
    `request_max_retries = ${input.maxRetries}`,
    `stream_max_retries = ${input.maxRetries}`,
    '',
    // Codex exports usage metrics to OpenAI by default; in the sandbox its DNS lookup fails and codex waits ~5 s
    // for it before exiting, on every call. A loop's calls are its own business: off.
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n');
}

/**
 * The model catalog entry that gives the model Codex's apply_patch tool and,
 * only when asked, its shell. The field set is what codex 0.169's
 * `model_catalog_json` parser requires.
 */
export function toCodexModelCatalog(model: string, options: { shell: boolean; contextWindow?: number }): string {
  const contextWindow = options.contextWindow ?? 200_000;
  return JSON.stringify({
    models: [
      {
        slug: model,
        display_name: model,
        description: 'Configured by loop-runtime',
        supports_reasoning_summaries: false,
        support_verbosity: false,
        default_verbosity: null,
        apply_patch_tool_type: 'freeform',
        web_search_tool_type: 'text',
        input_modalities: ['text'],
        truncation_policy: { mode: 'tokens', limit: 10_000 },
        supports_parallel_tool_calls: false,
        supports_image_detail_original: false,
        supports_search_tool: false,
        context_window: contextWindow,
        max_context_window: contextWindow,
        effective_context_window_percent: 90,
        experimental_supported_tools: [],
        default_reasoning_level: null,
        supported_reasoning_levels: [],
        shell_type: options.shell ? 'shell_command' : 'disabled',
        visibility: 'list',
        minimal_client_version: '0.0.1',
        supported_in_api: true,
        upgrade: null,
        priority: 0,
        base_instructions: 'You are a coding agent run by loop-runtime. Follow the developer instructions.',
      },
    ],
  });
}
