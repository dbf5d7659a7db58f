/**
 * Zero-config backend choice: the first agent in a pattern's `tools:` list
 * whose CLI is installed (on PATH or in the project's node_modules/.bin).
 * Not yet wired into resolvePlanBackend: see DESIGN.md "Agent backends".
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** loop-init tool names → our backend, its binary and the npm package that installs it. */
export const AGENT_TOOLS: Readonly<Record<string, { backend: string; binary: string; packageName: string; credentials: string }>> = {
  'claude-code': { backend: 'claude-code', binary: 'claude', packageName: '@anthropic-ai/claude-code', credentials: 'ANTHROPIC_API_KEY' },
  claude: { backend: 'claude-code', binary: 'claude', packageName: '@anthropic-ai/claude-code', credentials: 'ANTHROPIC_API_KEY' },
  codex: { backend: 'codex', binary: 'codex', packageName: '@openai/codex', credentials: 'OPENAI_API_KEY' },
  opencode: { backend: 'opencode', binary: 'opencode', packageName: 'opencode-ai', credentials: 'OPENAI_API_KEY' },
  gemini: { backend: 'gemini-cli', binary: 'gemini', packageName: '@google/gemini-cli', credentials: 'GEMINI_API_KEY' },
  'gemini-cli': { backend: 'gemini-cli', binary: 'gemini', packageName: '@google/gemini-cli', credentials: 'GEMINI_API_KEY' },
};

/** The binary's full path: the project's node_modules/.bin first, then PATH; null when neither has it. */
export function findAgentBinary(binary: string, root: string, env: Record<string, string | undefined>): string | null {
  const directories = [path.join(root, 'node_modules', '.bin'), ...(env['PATH'] ?? '').split(path.delimiter).filter(Boolean)];
  for (const directory of directories) {
    const candidate = path.join(directory, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export type AgentChoice =
  | { ok: true; backend: string; binary: string; tool: string }
  | { ok: false; message: string; fix: string };

/**
 * @example
 * ```ts
 * chooseAgentFromTools(['codex', 'gh'], '/repo', process.env); // { ok: true, backend: 'codex', binary: '/repo/node_modules/.bin/codex', tool: 'codex' }
 * ```
 */
export function chooseAgentFromTools(tools: readonly string[], root: string, env: Record<string, string | undefined>): AgentChoice {
  const agents = tools.filter((tool) => AGENT_TOOLS[tool] !== undefined);
  for (const tool of agents) {
    const known = AGENT_TOOLS[tool];
    if (!known) continue;
    const binary = findAgentBinary(known.binary, root, env);
    if (binary) return { ok: true, backend: known.backend, binary, tool };
  }
  const first = agents.length ? AGENT_TOOLS[agents[0] ?? ''] : undefined;
  const install = first ? `npm install ${first.packageName}` : 'npm install @openai/codex (or @anthropic-ai/claude-code)';
  return {
    ok: false,
    message: agents.length
      ? `no agent of the loop's tools (${agents.join(', ')}) is installed: none found on PATH or in node_modules/.bin.`
      : 'the loop names no agent in its tools and configures no backend.',
    fix: `${install}, or set "backend:" in the loop-runtime block of LOOP.md, or pass --backend mock to rehearse.`,
  };
}
