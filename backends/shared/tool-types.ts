/** Shared types of the workspace tools the OpenAI/Ollama loop offers. */
import type { CommandRunner, RolePermissions } from '../../src/core/ports/index.js';
import type { ToolDefinition } from './model.js';

export interface ToolContext {
  /** Absolute root every path resolves inside (the worktree, or the project root for triage). */
  root: string;
  permissions: RolePermissions;
  commands?: CommandRunner;
  /** Default and ceiling for run_command timeouts. */
  commandTimeoutMs: number;
  signal?: AbortSignal;
}

export interface ToolOutcome {
  /** What the model sees. */
  content: string;
  ok: boolean;
  /** Workspace-relative paths this call wrote. */
  wrote?: string[];
  /** The command this call ran (successfully or not). */
  executed?: string;
}

export type ToolKind = 'read' | 'write' | 'execute' | 'control';

export interface WorkspaceTool {
  kind: ToolKind;
  definition: ToolDefinition;
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome>;
}

export function stringArgument(args: Record<string, unknown>, name: string): string | undefined {
  const value = args[name];
  return typeof value === 'string' ? value : undefined;
}

export function numberArgument(args: Record<string, unknown>, name: string): number | undefined {
  const value = args[name];
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

export function failure(content: string): ToolOutcome {
  return { ok: false, content: `Error: ${content}` };
}
