/**
 * Runs an agent CLI inside bubblewrap: files confined by `agentProfile`, the
 * network reduced to the model proxy, credentials swapped for placeholders.
 * One `launch()` per role call; `close()` of the launch stops its proxy and
 * removes its run directory.
 */
import { access, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AgentRole } from '../../core/ports/index.js';
import { isWithin } from '../../core/sandbox/sandbox-profile.js';
import { toBwrapArgs } from '../../core/sandbox/to-bwrap-args.js';
import { createRedactor } from '../../core/security/redact-secrets.js';
import { isSecretName, secretValuesFromEnv } from '../../core/security/scrub-env.js';
import { resolveHiddenPaths } from '../command-runner/sandbox-host.js';
import { agentProfile, SYSTEM_READABLE_PATHS } from './agent-profile.js';
import { BRIDGE_SCRIPT } from './bridge-script.js';
import { findSecretFiles, type SecretFiles } from './find-secret-files.js';
import { startModelProxy, type ModelProxyStats } from './model-proxy.js';
import { worktreeHidingPaths } from '../workspace/worktrees-location.js';

/** Variables that carry the model credential: the agent gets a placeholder, the proxy adds the real value. */
export const CREDENTIAL_VARIABLES: readonly string[] = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'];
const DEFAULT_UPSTREAM = 'https://api.anthropic.com';

export interface AgentSandboxSettings {
  /** The bwrap executable (as found by `detectSandbox`). */
  bwrapPath: string;
  /** The user's checkout. Triage sees it read-only with secrets masked; the other roles never see it. */
  repoRoot: string;
  /** Host environment whose secret-looking values are redacted from requests. Default process.env. */
  hostEnv?: Record<string, string | undefined>;
  /** The user's home directory. Default os.homedir(). */
  home?: string;
  /** LOOP.md's `worktreesDir` setting, when set (its worktrees are hidden from triage like the default place's). */
  worktreesDir?: string | null;
}

export interface AgentLaunchRequest {
  role: AgentRole;
  /** The worktree (implement, check) or the repository root (triage). */
  workDir: string;
  /** The CLI to run, as configured (resolved to its real path). */
  binary: string;
  args: readonly string[];
  /** The CLI's environment as it would be unsandboxed; must contain HOME (its config home). */
  env: Record<string, string>;
  /** The variable holding the model base URL. */
  urlVariable: string;
  timeoutMs: number;
}

export interface AgentLaunchReport {
  proxy: ModelProxyStats;
  /** Secret files masked in the directory the agent saw. */
  masked: string[];
}

export interface AgentLaunch {
  file: string;
  args: string[];
  /** Environment for bwrap itself (the agent's is inside `args`). */
  env: Record<string, string>;
  /** Every secret value known for this call (environment and secret files), for the worktree check. */
  secrets: readonly string[];
  close(): Promise<AgentLaunchReport>;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

async function existing(paths: readonly string[]): Promise<string[]> {
  const found = await Promise.all(paths.map(async (path) => ((await exists(path)) ? path : null)));
  return found.filter((path): path is string => path !== null);
}

/** The agent's environment: nothing secret-named passes; model credentials become placeholders. */
export function sandboxEnv(env: Record<string, string>, urlVariable: string): { env: Record<string, string>; credentials: Record<string, string> } {
  const inside: Record<string, string> = {};
  const credentials: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name === urlVariable) continue;
    if (CREDENTIAL_VARIABLES.includes(name)) {
      const placeholder = `loop-runtime-sandbox-placeholder-${name.toLowerCase()}`;
      credentials[placeholder] = value;
      inside[name] = placeholder;
    } else if (!isSecretName(name)) inside[name] = value;
  }
  inside['TMPDIR'] = '/tmp';
  inside['CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC'] ??= '1';
  return { env: inside, credentials };
}

/**
 * @example
 * ```ts
 * const sandbox = createAgentSandbox({ bwrapPath: '/usr/bin/bwrap', repoRoot });
 * const launch = await sandbox.launch({ role: 'implement', workDir, binary: 'claude', args, env, urlVariable: 'ANTHROPIC_BASE_URL', timeoutMs });
 * // execa(launch.file, launch.args, { env: launch.env, extendEnv: false }) … then await launch.close()
 * ```
 */
export function createAgentSandbox(settings: AgentSandboxSettings) {
  const hostEnv = settings.hostEnv ?? process.env;
  const home = settings.home ?? homedir();
  // Worktrees never show in the checkout triage reads: the legacy `.loop-worktrees/`, a configured place, the state directory.
  const worktreeDirs = worktreeHidingPaths(settings.repoRoot, settings.worktreesDir);
  let repoSecrets: Promise<SecretFiles> | null = null;

  async function launch(request: AgentLaunchRequest): Promise<AgentLaunch> {
    const workDir = await realpath(request.workDir);
    const repoRoot = await realpath(settings.repoRoot).catch(() => settings.repoRoot);
    // The checkout's secret values are redacted even though only triage sees the checkout: defence in depth.
    repoSecrets ??= findSecretFiles(repoRoot, { skip: worktreeHidingPaths(repoRoot, settings.worktreesDir) });
    const visible = workDir === repoRoot ? await repoSecrets : await findSecretFiles(workDir);
    const secrets = [...new Set([...secretValuesFromEnv(hostEnv), ...secretValuesFromEnv(request.env), ...(await repoSecrets).values, ...visible.values])];

    const runDir = await mkdtemp(join(tmpdir(), 'loop-agent-'));
    try {
      const bridge = join(runDir, 'bridge.mjs');
      const socketPath = join(runDir, 'model.sock');
      await writeFile(bridge, BRIDGE_SCRIPT);
      const upstream = new URL(request.env[request.urlVariable] ?? DEFAULT_UPSTREAM);
      const inside = sandboxEnv(request.env, request.urlVariable);
      const proxy = await startModelProxy({ socketPath, upstream, redact: createRedactor(secrets), credentials: inside.credentials });

      const binary = await realpath(request.binary).catch(() => request.binary);
      const node = await realpath(process.execPath);
      const configHome = request.env['HOME'];
      if (!configHome) throw new TypeError('agent sandbox: the CLI environment has no HOME (its isolated config home)');
      const triage = workDir === repoRoot;
      const hidden = [
        ...visible.files,
        ...visible.directories,
        ...(triage ? [...worktreeDirs.filter((path) => isWithin(path, repoRoot)), join(repoRoot, '.loop-runtime'), join(repoRoot, '.git', 'config')] : []),
      ];
      const { hiddenPaths, pathKinds } = await resolveHiddenPaths(hidden);
      const profile = agentProfile(
        {
          role: request.role,
          workDir,
          configHome: await realpath(configHome),
          toolPaths: [dirname(binary), node, runDir],
          protectedFiles: await existing([join(workDir, '.git')]),
          hidden: hiddenPaths,
          home,
          timeoutMs: request.timeoutMs,
        },
        await existing(SYSTEM_READABLE_PATHS),
      );
      const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
      const basePath = upstream.pathname === '/' ? '' : upstream.pathname.replace(/\/$/, '');
      const args = toBwrapArgs(
        profile,
        { argv: [node, bridge, socketPath, request.urlVariable, basePath, '--', binary, ...request.args], cwd: workDir, env: inside.env },
        { isRoot, pathKinds },
      );
      return {
        file: settings.bwrapPath,
        args,
        env: { PATH: hostEnv['PATH'] ?? '/usr/bin:/bin' },
        secrets,
        close: async () => {
          const stats = proxy.stats();
          await proxy.close();
          await rm(runDir, { recursive: true, force: true });
          return { proxy: stats, masked: [...visible.files, ...visible.directories] };
        },
      };
    } catch (error) {
      await rm(runDir, { recursive: true, force: true });
      throw error;
    }
  }
  return { launch };
}

export type AgentSandbox = ReturnType<typeof createAgentSandbox>;
