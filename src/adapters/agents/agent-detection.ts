/**
 * Zero-config backend choice: the first agent among a plan's candidates
 * whose CLI is installed (in the project's node_modules/.bin or on PATH).
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { AGENT_TOOLS, agentCandidates, type BackendCandidate } from '../../core/plan/agent-tools.js';

export { AGENT_TOOLS } from '../../core/plan/agent-tools.js';

/** The binary's full path: the project's node_modules/.bin first, then PATH; null when neither has it. */
export function findAgentBinary(binary: string, root: string, env: Record<string, string | undefined>): string | null {
  const directories = [path.join(root, 'node_modules', '.bin'), ...(env['PATH'] ?? '').split(path.delimiter).filter(Boolean)];
  for (const directory of directories) {
    const candidate = path.join(directory, binary);
    try {
      // Most PATH entries lack the binary: stat answers that without building an exception (accessSync threw one
      // per directory, ~40 per `status`, ~1.5 ms); access then decides for a file that exists.
      if (!statSync(candidate, { throwIfNoEntry: false })) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export type AgentChoice =
  | { ok: true; backend: string; binary: string; tool: string; from: BackendCandidate['from'] }
  | { ok: false; message: string; fix: string };

/**
 * The first installed agent of `candidates`, or why none runs and the one-line fix.
 *
 * @example
 * ```ts
 * chooseAgent([{ backend: 'codex', tool: 'codex', from: 'tools' }], '/repo', process.env);
 * // → { ok: true, backend: 'codex', binary: '/repo/node_modules/.bin/codex', tool: 'codex', from: 'tools' }
 * ```
 */
export function chooseAgent(candidates: readonly BackendCandidate[], root: string, env: Record<string, string | undefined>): AgentChoice {
  for (const candidate of candidates) {
    const known = AGENT_TOOLS[candidate.backend];
    const binary = known ? findAgentBinary(known.binary, root, env) : null;
    if (binary) return { ok: true, backend: candidate.backend, binary, tool: candidate.tool, from: candidate.from };
  }
  const first = candidates[0] ? AGENT_TOOLS[candidates[0].backend] : undefined;
  const install = first ? `npm install ${first.packageName}` : 'npm install @anthropic-ai/claude-code (or @openai/codex)';
  return {
    ok: false,
    message: candidates.length
      ? `no agent this loop can use (${candidates.map((candidate) => candidate.backend).join(', ')}) is installed: none found in node_modules/.bin or on PATH.`
      : 'the loop configures no backend and neither its tools nor the project name an agent.',
    fix: `${install}, or set "backend:" in the loop-runtime block of LOOP.md, or pass --backend mock to rehearse.`,
  };
}

/** `chooseAgent` over a pattern's `tools:` alone (no scaffold folders). */
export function chooseAgentFromTools(tools: readonly string[], root: string, env: Record<string, string | undefined>): AgentChoice {
  return chooseAgent(agentCandidates(tools, []), root, env);
}
