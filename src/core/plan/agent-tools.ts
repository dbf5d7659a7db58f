/**
 * The coding agents loop-runtime can run as backends, keyed by the tool
 * names loop-init and the pattern registry use (`tools:`), and how a
 * project's scaffold names its agent (`.codex/skills`, `.claude/skills`…).
 * Pure data plus the candidate order for zero-config backend choice.
 */

export interface AgentTool {
  /** Our backend name. */
  backend: string;
  /** The CLI the backend runs. */
  binary: string;
  /** The npm package that installs the CLI. */
  packageName: string;
  /** Variables that authenticate the CLI; any one of them is enough. */
  credentials: readonly string[];
}

const CLAUDE: AgentTool = { backend: 'claude-code', binary: 'claude', packageName: '@anthropic-ai/claude-code', credentials: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'] };
const CODEX: AgentTool = { backend: 'codex', binary: 'codex', packageName: '@openai/codex', credentials: ['OPENAI_API_KEY'] };
const OPENCODE: AgentTool = {
  backend: 'opencode',
  binary: 'opencode',
  packageName: 'opencode-ai',
  credentials: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENROUTER_API_KEY', 'GEMINI_API_KEY', 'OPENCODE_API_KEY'],
};
const GEMINI: AgentTool = { backend: 'gemini-cli', binary: 'gemini', packageName: '@google/gemini-cli', credentials: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] };

/** Tool names (as in `tools:` and `loop-init --tool`) → the agent that runs them. */
export const AGENT_TOOLS: Readonly<Record<string, AgentTool>> = {
  'claude-code': CLAUDE,
  claude: CLAUDE,
  codex: CODEX,
  opencode: OPENCODE,
  gemini: GEMINI,
  'gemini-cli': GEMINI,
};

/** The agent a backend name runs, if it is one of the CLI agents. */
export function agentForBackend(backend: string): AgentTool | undefined {
  return Object.values(AGENT_TOOLS).find((tool) => tool.backend === backend || (backend === 'claude' && tool === CLAUDE) || (backend === 'gemini' && tool === GEMINI));
}

/**
 * loop-init's opencode layout has no dot folder: `skills/` at the root beside an `opencode.json` holding the
 * loop agents. This marker stands for both.
 */
export const OPENCODE_ROOT_SCAFFOLD = 'opencode.json';

/**
 * Folders a loop-init scaffold leaves at the repository root, each naming the project's agent (a folder with
 * `skills/` inside; for `OPENCODE_ROOT_SCAFFOLD`, `opencode.json` and `skills/` at the root).
 */
export const AGENT_SCAFFOLD_FOLDERS: Readonly<Record<string, string>> = {
  '.claude': 'claude-code',
  '.codex': 'codex',
  '.opencode': 'opencode',
  [OPENCODE_ROOT_SCAFFOLD]: 'opencode',
  '.gemini': 'gemini',
};

/**
 * How a scaffold marker reads in a reason: `.codex/skills`, `opencode.json and skills/`.
 *
 * @example
 * ```ts
 * scaffoldLabel('.codex'); // → '.codex/skills'
 * ```
 */
export function scaffoldLabel(marker: string): string {
  return marker === OPENCODE_ROOT_SCAFFOLD ? `${OPENCODE_ROOT_SCAFFOLD} and skills/` : `${marker}/skills`;
}

/** One agent the runtime may choose for an unconfigured loop, and where the name came from. */
export interface BackendCandidate {
  backend: string;
  tool: string;
  /** `scaffold`: the project has the agent's folder (e.g. `.codex/`); `tools`: the pattern's `tools:` names it. */
  from: 'scaffold' | 'tools';
}

/**
 * The agents to try for a loop with no `backend:`, in order: the agents the
 * project's scaffold folders name (the project's own choice), then the
 * pattern's `tools:` in their order. Each backend appears once.
 *
 * @example
 * ```ts
 * agentCandidates(['grok', 'claude-code', 'codex'], ['.codex']);
 * // → [{ backend: 'codex', tool: '.codex', from: 'scaffold' }, { backend: 'claude-code', tool: 'claude-code', from: 'tools' }]
 * ```
 */
export function agentCandidates(tools: readonly string[], scaffoldFolders: readonly string[]): BackendCandidate[] {
  const candidates: BackendCandidate[] = [];
  const add = (tool: string, from: BackendCandidate['from'], agentName: string | undefined) => {
    const agent = agentName === undefined ? undefined : AGENT_TOOLS[agentName];
    if (agent && !candidates.some((candidate) => candidate.backend === agent.backend)) candidates.push({ backend: agent.backend, tool, from });
  };
  // In the scaffold's own order: the folder loop-init wrote for its --tool comes first (see scaffoldFolders).
  for (const folder of scaffoldFolders) {
    if (folder in AGENT_SCAFFOLD_FOLDERS) add(folder, 'scaffold', AGENT_SCAFFOLD_FOLDERS[folder]);
  }
  for (const tool of tools) add(tool, 'tools', tool);
  return candidates;
}
