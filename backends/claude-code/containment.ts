/**
 * Puts each `claude` run inside the agent sandbox (bubblewrap + model proxy),
 * or refuses when it cannot and the loop did not opt out. One instance per
 * backend: it remembers the sandbox decision and owns the temporary config
 * home used when no `home` is configured.
 */
import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Level } from '../../src/core/config/schemas.js';
import { isLoopRuntimeError } from '../../src/core/errors.js';
import type { AgentRole } from '../../src/core/ports/index.js';
import { createAgentSandbox, type AgentSandbox } from '../../src/adapters/agent-sandbox/agent-sandbox.js';
import { requireAgentContainment, type AgentContainment } from '../../src/adapters/agent-sandbox/require-agent-sandbox.js';
import { scrubNewSecrets } from '../../src/adapters/agent-sandbox/scrub-worktree.js';
import { findSecretFiles, type SecretFiles } from '../../src/adapters/agent-sandbox/find-secret-files.js';
import { secretValuesFromEnv } from '../../src/core/security/scrub-env.js';
import type { SandboxDetection } from '../../src/adapters/command-runner/bwrap-runner.js';
import { findExecutable } from '../../src/adapters/command-runner/sandbox-host.js';
import { worktreeHidingPaths } from '../../src/adapters/workspace/worktrees-location.js';

export interface ContainmentSettings {
  /** The loop's level: without a sandbox the agent is refused at L3. */
  level?: Level;
  /** Below L3 only: run the CLI uncontained when bubblewrap is unavailable (logged). */
  allowUnsandboxed?: boolean;
  /** Where the opt-out note goes. */
  log?: (line: string) => void;
  bwrapPath?: string;
  /** Injected for tests; default: a trial bwrap run. */
  detectSandbox?: () => Promise<SandboxDetection>;
  /** The user's checkout (triage's cwd). */
  projectRoot: string;
  /** LOOP.md's `worktreesDir` setting, when set. */
  worktreesDir?: string | null;
  /** Configured config home; a temporary one is made when absent and the CLI is contained. */
  home?: string;
  hostEnv: Record<string, string | undefined>;
}

export interface PreparedRun {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Stops the proxy; for the implementer, scrubs new secret values from the worktree. Returns notes for the transcript. */
  finish(): Promise<{ notes: string[]; scrubbed: string[] }>;
}

export interface RunToPrepare {
  role: AgentRole;
  workDir: string;
  binary: string;
  args: string[];
  env: Record<string, string>;
  timeoutMs: number;
}

async function binaryExists(binary: string, env: Record<string, string>): Promise<string | null> {
  if (!binary.includes('/')) return findExecutable(binary, env);
  try {
    await access(binary, constants.X_OK);
    return binary;
  } catch {
    return null;
  }
}

export function createContainment(settings: ContainmentSettings) {
  let decision: Promise<AgentContainment> | null = null;
  let sandbox: AgentSandbox | null = null;
  let tempHome: Promise<string> | null = null;
  let repoSecrets: Promise<SecretFiles> | null = null;

  return {
    /** Whether runs are contained; throws SANDBOX_UNAVAILABLE (as a failure from `prepare`) when refused. */
    async contained(): Promise<boolean> {
      decision ??= requireAgentContainment({
        ...(settings.level ? { level: settings.level } : {}),
        allowUnsandboxed: settings.allowUnsandboxed ?? false,
        ...(settings.log ? { log: settings.log } : {}),
        env: settings.hostEnv,
        ...(settings.bwrapPath ? { bwrapPath: settings.bwrapPath } : {}),
        ...(settings.detectSandbox ? { detect: settings.detectSandbox } : {}),
      });
      return (await decision).kind === 'bwrap';
    },

    /** The config home the CLI gets: the configured one, or (contained only) a temporary one. */
    async home(contained: boolean): Promise<string | undefined> {
      if (settings.home || !contained) return settings.home;
      tempHome ??= mkdtemp(join(tmpdir(), 'loop-claude-home-'));
      return tempHome;
    },

    /** The command to run for one role call, or 'missing' when the CLI is not there. */
    async prepare(run: RunToPrepare): Promise<PreparedRun | 'missing'> {
      const containment = await decision;
      if (containment?.kind !== 'bwrap') {
        // Uncontained (the logged opt-out): nothing stops the reads, but a kept worktree still holds no new secret.
        const secrets = async () => [...secretValuesFromEnv(settings.hostEnv), ...secretValuesFromEnv(run.env), ...(await (repoSecrets ??= findSecretFiles(settings.projectRoot, { skip: worktreeHidingPaths(settings.projectRoot, settings.worktreesDir) }))).values];
        return { file: run.binary, args: run.args, env: run.env, finish: async () => scrubbedNotes(run.role === 'implement' ? (await scrubNewSecrets(run.workDir, await secrets())).scrubbed : []) };
      }
      const binary = await binaryExists(run.binary, run.env);
      if (!binary) return 'missing';
      sandbox ??= createAgentSandbox({ bwrapPath: containment.bwrapPath, repoRoot: settings.projectRoot, hostEnv: settings.hostEnv, worktreesDir: settings.worktreesDir ?? null });
      const launch = await sandbox.launch({ role: run.role, workDir: run.workDir, binary, args: run.args, env: run.env, urlVariable: 'ANTHROPIC_BASE_URL', timeoutMs: run.timeoutMs });
      return {
        file: launch.file,
        args: launch.args,
        env: launch.env,
        finish: async () => {
          const report = await launch.close();
          const notes: string[] = [];
          if (report.proxy.refused.length) notes.push(`sandbox: refused network requests to ${report.proxy.refused.join(', ')}`);
          if (report.proxy.redacted) notes.push(`sandbox: redacted secret values from ${report.proxy.redacted} model request(s)`);
          const scrubbed = run.role === 'implement' ? (await scrubNewSecrets(run.workDir, launch.secrets)).scrubbed : [];
          const scrub = scrubbedNotes(scrubbed);
          return { notes: [...notes, ...scrub.notes], scrubbed };
        },
      };
    },

    async close(): Promise<void> {
      if (tempHome) await rm(await tempHome, { recursive: true, force: true });
    },
  };
}

function scrubbedNotes(scrubbed: string[]): { notes: string[]; scrubbed: string[] } {
  return { notes: scrubbed.length ? [`sandbox: scrubbed secret values the agent wrote into ${scrubbed.join(', ')}`] : [], scrubbed };
}

/** A refusal as the backend reports it: like a missing CLI, it stops the loop (exit 5), never retried. */
export function refusalOf(error: unknown): { message: string; detail: Record<string, unknown> } | null {
  if (!isLoopRuntimeError(error) || error.code !== 'SANDBOX_UNAVAILABLE') return null;
  return { message: error.message, detail: { code: error.code } };
}
