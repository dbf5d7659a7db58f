/**
 * Pure mapping from a role call to `claude` CLI arguments and environment.
 * The prompt itself goes to stdin (no argument-length limits, not visible in
 * `ps`); trusted instructions go to `--append-system-prompt`.
 */
import type { AgentRole, RolePermissions } from '../../src/core/ports/index.js';

export type ClaudePermissionMode = 'acceptEdits' | 'auto' | 'bypassPermissions' | 'default' | 'dontAsk' | 'plan';

const READ_TOOLS = ['Read', 'Glob', 'Grep'];
const WRITE_TOOLS = ['Edit', 'Write'];
/** Tools a loop never needs: network access, sub-agents, scheduling, notebooks, worktree switching. */
const ALWAYS_DENIED = ['WebFetch', 'WebSearch', 'NotebookEdit', 'Task', 'Agent', 'CronCreate', 'EnterWorktree', 'ExitWorktree'];

export interface ClaudeToolPolicy {
  /** `--tools`: the only built-in tools that exist in the session. */
  tools: string[];
  /** `--allowedTools`: pre-approved without a prompt. */
  allowed: string[];
  /** `--disallowedTools`: removed even if a setting or MCP config adds them. */
  disallowed: string[];
  permissionMode: ClaudePermissionMode;
}

/**
 * Read-only roles get Read, Glob and Grep only. The implementer also gets Edit
 * and Write, approved by `acceptEdits` (which only covers the working
 * directory, so writes outside the worktree are denied), and Bash only when
 * `allowBash` is set: Claude's Bash does not run through our sandboxed
 * CommandRunner.
 *
 * @example
 * ```ts
 * toolPolicy('check', { write: false, execute: false }, false).tools; // ['Read', 'Glob', 'Grep']
 * ```
 */
export function toolPolicy(role: AgentRole, permissions: RolePermissions, allowBash: boolean): ClaudeToolPolicy {
  const writes = role === 'implement' && permissions.write;
  const bash = writes && permissions.execute && allowBash;
  const tools = [...READ_TOOLS, ...(writes ? WRITE_TOOLS : []), ...(bash ? ['Bash'] : [])];
  return {
    tools,
    allowed: [...READ_TOOLS, ...(bash ? ['Bash'] : [])],
    disallowed: [...ALWAYS_DENIED, ...(writes ? [] : WRITE_TOOLS), ...(bash ? [] : ['Bash'])],
    permissionMode: writes ? 'acceptEdits' : 'dontAsk',
  };
}

export interface CliArgsInput {
  role: AgentRole;
  permissions: RolePermissions;
  systemPrompt: string;
  model?: string;
  maxTurns: number;
  permissionMode?: ClaudePermissionMode | Partial<Record<AgentRole, ClaudePermissionMode>>;
  mcpConfig?: string | string[];
  allowBash?: boolean;
  extraArgs?: string[];
}

export function toCliArgs(input: CliArgsInput): string[] {
  const policy = toolPolicy(input.role, input.permissions, input.allowBash ?? false);
  const mode =
    typeof input.permissionMode === 'string' ? input.permissionMode : (input.permissionMode?.[input.role] ?? policy.permissionMode);
  const args = [
    '-p',
    '--output-format', 'stream-json',
    '--verbose',
    '--include-partial-messages',
    '--no-session-persistence',
    '--max-turns', String(input.maxTurns),
    '--permission-mode', mode,
    '--tools', policy.tools.join(','),
    '--allowedTools', policy.allowed.join(','),
    '--disallowedTools', policy.disallowed.join(','),
    '--append-system-prompt', input.systemPrompt,
  ];
  if (input.model) args.push('--model', input.model);
  const mcp = typeof input.mcpConfig === 'string' ? [input.mcpConfig] : (input.mcpConfig ?? []);
  if (mcp.length) args.push('--mcp-config', ...mcp, '--strict-mcp-config');
  args.push(...(input.extraArgs ?? []));
  return args;
}

export interface CliEnvInput {
  base: Record<string, string | undefined>;
  env?: Record<string, string>;
  /** Isolated home: HOME and CLAUDE_CONFIG_DIR point here. */
  home?: string;
  maxRetries?: number;
}

/** The child's environment: the base (usually process.env) plus overrides, with an isolated HOME when asked. */
export function toCliEnv(input: CliEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.base)) if (value !== undefined) env[key] = value;
  Object.assign(env, input.env ?? {});
  if (input.home) {
    env['HOME'] = input.home;
    env['CLAUDE_CONFIG_DIR'] = `${input.home}/.claude`;
  }
  if (input.maxRetries !== undefined) env['CLAUDE_CODE_MAX_RETRIES'] = String(input.maxRetries);
  env['DISABLE_AUTOUPDATER'] ??= '1';
  return env;
}
