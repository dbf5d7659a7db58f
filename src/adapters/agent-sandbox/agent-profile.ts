/**
 * The sandbox profile for one agent role call. Pure: the adapter supplies
 * real paths and which of them exist.
 *
 * Reads are an allowlist (`readableRoots`): the system directories a CLI
 * needs, its own binary, the bridge, and the directory the role works in.
 * The user's checkout outside the worktree, their home directory and every
 * other host path are simply absent. Secret files inside the visible
 * directory are masked. Network: the sandbox's own loopback only.
 */
import type { AgentRole } from '../../core/ports/index.js';
import { defaultProfile, SandboxProfileSchema, type SandboxProfile } from '../../core/sandbox/sandbox-profile.js';

/** Host paths a CLI and its shell need, read-only: the list the verification sandbox starts from too. */
export { SYSTEM_READABLE_PATHS } from '../../core/sandbox/verification-profile.js';

export interface AgentProfileInput {
  role: AgentRole;
  /** Where the role works: the worktree (implement, check) or the repository root (triage). */
  workDir: string;
  /** The CLI's isolated config home: always writable. */
  configHome: string;
  /** Read-only extras: the CLI's binary directory, node, the bridge's directory. */
  toolPaths: readonly string[];
  /** Files inside `workDir` that must stay read-only (the worktree's `.git` file). */
  protectedFiles: readonly string[];
  /** Paths to mask: secret files and directories, other worktrees, `.git/config`. */
  hidden: readonly string[];
  /** The user's home (its credential paths are masked too, should a readable root lie inside it). */
  home: string;
  timeoutMs: number;
}

/**
 * The implementer writes its worktree; triage and the checker only read.
 *
 * @example
 * ```ts
 * const profile = agentProfile({ role: 'check', workDir: wt, configHome, toolPaths: [cliDir], protectedFiles: [],
 *   hidden: [], home: '/home/me', timeoutMs: 600_000 }, SYSTEM_READABLE_PATHS);
 * profile.writableRoots; // [configHome]
 * ```
 */
export function agentProfile(input: AgentProfileInput, systemPaths: readonly string[]): SandboxProfile {
  const writesWorkDir = input.role === 'implement';
  const writable = writesWorkDir ? [input.workDir, input.configHome] : [input.configHome];
  const base = defaultProfile({
    worktree: writable[0] ?? input.configHome,
    writableExtra: writable.slice(1),
    home: input.home,
    hiddenExtra: input.hidden,
    network: 'loopback',
    timeoutMs: input.timeoutMs,
  });
  const readable = [...systemPaths, ...input.toolPaths, ...(writesWorkDir ? input.protectedFiles : [input.workDir])];
  return SandboxProfileSchema.parse({ ...base, readableRoots: [...new Set(readable)] });
}
