/**
 * Pure mapping from a role call to what `gemini -p` needs: the arguments,
 * the settings.json written into the isolated GEMINI_CLI_HOME (tool
 * allowlist, turn limit, telemetry and update checks off), and the child's
 * environment. The prompt goes to stdin.
 */
import type { AgentRole, RolePermissions } from '../../src/core/ports/index.js';
import { DEFAULT_ENV_ALLOWLIST, scrubEnv } from '../../src/core/security/scrub-env.js';

const READ_TOOLS = ['read_file', 'read_many_files', 'list_directory', 'glob', 'grep_search'];
const WRITE_TOOLS = ['replace', 'write_file'];
/** Tools a loop never needs: the network, memory, sub-agents, planning, user questions. */
const ALWAYS_EXCLUDED = [
  'web_fetch', 'google_web_search', 'save_memory', 'invoke_agent', 'ask_user', 'write_todos', 'enter_plan_mode', 'exit_plan_mode', 'activate_skill',
];

export type GeminiApprovalMode = 'default' | 'auto_edit' | 'plan';

export interface GeminiToolPolicy {
  /** `tools.core`: the only built-in tools that exist in the session. */
  core: string[];
  /** `tools.exclude`: removed even if something else adds them. */
  exclude: string[];
  approvalMode: GeminiApprovalMode;
}

/**
 * Read-only roles get the read tools only and the `default` approval mode
 * (headless, anything needing approval is refused). The implementer also gets
 * replace and write_file under `auto_edit`, and run_shell_command only with
 * `allowBash` (it bypasses our sandboxed CommandRunner). Gemini's file tools
 * refuse paths outside the workspace directory on their own.
 *
 * @example
 * ```ts
 * toGeminiToolPolicy('check', { write: false, execute: false }, false).core; // the read tools
 * ```
 */
export function toGeminiToolPolicy(role: AgentRole, permissions: RolePermissions, allowBash: boolean): GeminiToolPolicy {
  const writes = role === 'implement' && permissions.write;
  const bash = writes && permissions.execute && allowBash;
  return {
    core: [...READ_TOOLS, ...(writes ? WRITE_TOOLS : []), ...(bash ? ['run_shell_command'] : [])],
    exclude: [...ALWAYS_EXCLUDED, ...(writes ? [] : WRITE_TOOLS), ...(bash ? [] : ['run_shell_command'])],
    approvalMode: writes ? 'auto_edit' : 'default',
  };
}

export interface GeminiSettingsInput {
  role: AgentRole;
  permissions: RolePermissions;
  maxTurns: number;
  allowBash?: boolean;
  /** The auth type the CLI selects: an API key unless the user says otherwise. */
  authType?: string;
}

/** settings.json for the isolated home. */
export function toGeminiSettings(input: GeminiSettingsInput): Record<string, unknown> {
  const policy = toGeminiToolPolicy(input.role, input.permissions, input.allowBash ?? false);
  return {
    security: { auth: { selectedType: input.authType ?? 'gemini-api-key' }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, checkpointing: { enabled: false } },
    model: { maxSessionTurns: input.maxTurns, skipNextSpeakerCheck: true, disableLoopDetection: true },
    tools: { core: policy.core, exclude: policy.exclude, useRipgrep: false },
    context: { discoveryMaxDirs: 50 },
  };
}

export function toGeminiArgs(input: { role: AgentRole; permissions: RolePermissions; model?: string; allowBash?: boolean; extraArgs?: string[] }): string[] {
  const policy = toGeminiToolPolicy(input.role, input.permissions, input.allowBash ?? false);
  return [
    // The task arrives on stdin; -p makes the run headless and is appended to it.
    '-p', 'Do the task above.',
    '--output-format', 'stream-json',
    '--approval-mode', policy.approvalMode,
    '--skip-trust',
    // A concrete model: "auto" would spend side calls on routing.
    '--model', input.model ?? 'gemini-2.5-flash',
    ...(input.extraArgs ?? []),
  ];
}

/** Credentials and endpoints the Gemini CLI reads from the environment; passed through the scrub by exact name. */
export const GEMINI_CREDENTIAL_VARIABLES = [
  'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'GOOGLE_VERTEX_BASE_URL', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION',
  'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_APPLICATION_CREDENTIALS',
];

export interface GeminiEnvInput {
  base: Readonly<Record<string, string | undefined>>;
  /** The isolated home: HOME and GEMINI_CLI_HOME (its `.gemini/settings.json` is ours). */
  home: string;
  passEnv?: readonly string[];
  env?: Record<string, string>;
}

/** A scrubbed environment with the isolated home, no relaunch into a child Node, and no terminal colours. */
export function toGeminiEnv(input: GeminiEnvInput): Record<string, string> {
  const env = scrubEnv(input.base, [...DEFAULT_ENV_ALLOWLIST, ...GEMINI_CREDENTIAL_VARIABLES, ...(input.passEnv ?? [])]);
  Object.assign(env, {
    HOME: input.home,
    GEMINI_CLI_HOME: input.home,
    // One process, not a relaunched child: the process group we kill is the whole CLI.
    GEMINI_CLI_NO_RELAUNCH: 'true',
    NO_COLOR: '1',
  });
  Object.assign(env, input.env ?? {});
  return env;
}
