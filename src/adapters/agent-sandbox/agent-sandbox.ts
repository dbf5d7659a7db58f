/**
 * One role call of any agent CLI behind the metering proxy, contained in
 * bubblewrap (files confined by `agentProfile`, the network reduced to the
 * proxy through the bridge) or — the logged opt-out below L3 — uncontained
 * with the same proxy on 127.0.0.1. `open()` starts the proxy and says which
 * base URL the CLI must use; `command()` wraps the CLI; `close()` stops the
 * proxy and removes the run directory.
 */
import { randomBytes } from 'node:crypto';
import { access, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentRole } from '../../core/ports/index.js';
import { isWithin } from '../../core/sandbox/sandbox-profile.js';
import { toBwrapArgs } from '../../core/sandbox/to-bwrap-args.js';
import { createRedactor } from '../../core/security/redact-secrets.js';
import { isSecretName, secretValuesFromEnv } from '../../core/security/scrub-env.js';
import { resolveHiddenPaths } from '../command-runner/sandbox-host.js';
import { worktreeHidingPaths } from '../workspace/worktrees-location.js';
import { agentProfile, SYSTEM_READABLE_PATHS } from './agent-profile.js';
import { BRIDGE_PORT, BRIDGE_SCRIPT } from './bridge-script.js';
import { cliReadablePaths } from './cli-package.js';
import { findSecretFiles, type SecretFiles } from './find-secret-files.js';
import { startModelProxy, type ModelProxy, type ModelProxySettings, type ModelProxyStats } from './model-proxy.js';

/** Variables that carry a model credential: the agent gets a placeholder, the proxy adds the real value. */
export const CREDENTIAL_VARIABLES: readonly string[] = [
  'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY', 'OPENROUTER_API_KEY', 'GROQ_API_KEY', 'MISTRAL_API_KEY', 'DEEPSEEK_API_KEY', 'XAI_API_KEY', 'OPENCODE_API_KEY',
];
/** sun_path holds 108 bytes on Linux (107 and a NUL); keep a margin. */
const MAX_SOCKET_PATH = 100;

export interface AgentSandboxSettings {
  /** The bwrap executable (as found by `detectSandbox`); null runs uncontained (the logged opt-out). */
  bwrapPath: string | null;
  /** The user's checkout. Triage sees it read-only with secrets masked; the other roles never see it. */
  repoRoot: string;
  /** Host environment whose secret-looking values are redacted from requests. Default process.env. */
  hostEnv?: Record<string, string | undefined>;
  /** The user's home directory. Default os.homedir(). */
  home?: string;
  /** LOOP.md's `worktreesDir` setting, when set (its worktrees are hidden from triage like the default place's). */
  worktreesDir?: string | null;
  /** Where the short run directory (the proxy's socket) goes. Default /tmp, whatever TMPDIR says. */
  runParent?: string;
}

export interface AgentOpenRequest {
  role: AgentRole;
  /** The worktree (implement, check) or the repository root (triage). */
  workDir: string;
  /** The model endpoint the user configured. */
  upstream: URL;
  /** The CLI's environment (without the model URL): its credential variables become placeholders. */
  env: Record<string, string>;
  /** Credential variables besides CREDENTIAL_VARIABLES (e.g. codex's `apiKeyEnv`). */
  credentialVariables?: readonly string[];
  onUsage?: (proxy: ModelProxy) => void;
  allowCall?: (call: number) => boolean;
  /** The agent is retrying the model endpoint (the proxy's `onRetry`). */
  onRetry?: ModelProxySettings['onRetry'];
}

export interface AgentCommandRequest {
  binary: string;
  args: readonly string[];
  /** The CLI's whole environment, with its model URL; must hold HOME (its isolated config home). */
  env: Record<string, string>;
  /** The CLI's config home: writable inside the sandbox. Default env.HOME. */
  configHome?: string;
  timeoutMs: number;
}

export interface AgentLaunchReport {
  proxy: ModelProxyStats;
  /** Secret files masked in the directory the agent saw. */
  masked: string[];
}

export interface AgentSession {
  contained: boolean;
  /** The model base URL the CLI must use (inside the sandbox: the bridge's fixed port). */
  baseUrl: string;
  proxy: ModelProxy;
  /** Every secret value known for this call (environment and secret files), for the worktree check. */
  secrets: readonly string[];
  /** The command to spawn (bwrap, or the CLI itself) and the environment to give it. */
  command(request: AgentCommandRequest): Promise<{ file: string; args: string[]; env: Record<string, string> }>;
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

// A per-run nonce: the uncontained proxy listens on 127.0.0.1, so a fixed placeholder would let any local process use the key.
const placeholderOf = (name: string, nonce: string) => `loop-runtime-sandbox-placeholder-${name.toLowerCase()}${nonce ? `-${nonce}` : ''}`;

/** The agent's environment: nothing secret-named passes; model credentials become placeholders. */
export function sandboxEnv(env: Record<string, string>, credentialVariables: readonly string[] = CREDENTIAL_VARIABLES, nonce = ''): { env: Record<string, string>; credentials: Record<string, string> } {
  const inside: Record<string, string> = {};
  const credentials: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (credentialVariables.includes(name) || CREDENTIAL_VARIABLES.includes(name)) {
      credentials[placeholderOf(name, nonce)] = value;
      inside[name] = placeholderOf(name, nonce);
    } else if (!isSecretName(name)) inside[name] = value;
  }
  inside['CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC'] ??= '1';
  return { env: inside, credentials };
}

/**
 * @example
 * ```ts
 * const sandbox = createAgentSandbox({ bwrapPath: '/usr/bin/bwrap', repoRoot });
 * const session = await sandbox.open({ role: 'implement', workDir, upstream: new URL('https://api.anthropic.com'), env });
 * const command = await session.command({ binary: 'claude', args, env: { ...env, ANTHROPIC_BASE_URL: session.baseUrl }, timeoutMs });
 * // execa(command.file, command.args, { env: command.env, extendEnv: false }) … then await session.close()
 * ```
 */
export function createAgentSandbox(settings: AgentSandboxSettings) {
  const hostEnv = settings.hostEnv ?? process.env;
  const home = settings.home ?? homedir();
  // Worktrees never show in the checkout triage reads: the legacy `.loop-worktrees/`, a configured place, the state directory.
  const worktreeDirs = worktreeHidingPaths(settings.repoRoot, settings.worktreesDir);
  let repoSecrets: Promise<SecretFiles> | null = null;

  async function runParent(): Promise<string> {
    if (settings.runParent) return settings.runParent;
    // A long TMPDIR would push the socket past sun_path: /tmp is short on every Linux host.
    return (await exists('/tmp')) ? '/tmp' : tmpdir();
  }

  async function open(request: AgentOpenRequest): Promise<AgentSession> {
    const contained = settings.bwrapPath !== null;
    const workDir = await realpath(request.workDir);
    const repoRoot = await realpath(settings.repoRoot).catch(() => settings.repoRoot);
    // The checkout's secret values are redacted even though only triage sees the checkout: defence in depth.
    repoSecrets ??= findSecretFiles(repoRoot, { skip: worktreeHidingPaths(repoRoot, settings.worktreesDir) });
    const visible = workDir === repoRoot ? await repoSecrets : await findSecretFiles(workDir);
    const secrets = [...new Set([...secretValuesFromEnv(hostEnv), ...secretValuesFromEnv(request.env), ...(await repoSecrets).values, ...visible.values])];
    const credentialVariables = [...CREDENTIAL_VARIABLES, ...(request.credentialVariables ?? [])];
    const nonce = randomBytes(8).toString('hex');
    const { credentials } = sandboxEnv(request.env, credentialVariables, nonce);
    const proxySettings = { upstream: request.upstream, redact: createRedactor(secrets), credentials, ...(request.onUsage ? { onUsage: request.onUsage } : {}), ...(request.allowCall ? { allowCall: request.allowCall } : {}), ...(request.onRetry ? { onRetry: request.onRetry } : {}) };
    const basePath = request.upstream.pathname.replace(/\/+$/, '');

    if (!contained) {
      const proxy = await startModelProxy(proxySettings);
      return {
        contained, baseUrl: proxy.url ?? '', proxy, secrets,
        command: async (command) => ({ file: command.binary, args: [...command.args], env: sandboxEnv(command.env, credentialVariables, nonce).env }),
        close: async () => {
          const stats = proxy.stats();
          await proxy.close();
          return { proxy: stats, masked: [] };
        },
      };
    }

    const runDir = await mkdtemp(join(await runParent(), 'loop-agent-'));
    const socketPath = join(runDir, 'model.sock');
    let proxy: ModelProxy | null = null;
    try {
      if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
        throw new Error(`the model proxy's socket path ${socketPath} is longer than ${MAX_SOCKET_PATH} bytes (a Unix socket holds at most 107). To fix: set the sandbox's run directory to a short path`);
      }
      const bridge = join(runDir, 'bridge.mjs');
      await writeFile(bridge, BRIDGE_SCRIPT);
      proxy = await startModelProxy({ ...proxySettings, socketPath });
      const started = proxy;
      return {
        contained, baseUrl: `http://127.0.0.1:${BRIDGE_PORT}${basePath}`, proxy: started, secrets,
        command: async (command) => {
          const node = await realpath(process.execPath);
          const configHome = command.configHome ?? command.env['HOME'];
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
              toolPaths: [...(await cliReadablePaths(command.binary)), node, runDir],
              protectedFiles: await existing([join(workDir, '.git')]),
              hidden: hiddenPaths,
              home,
              timeoutMs: command.timeoutMs,
            },
            await existing(SYSTEM_READABLE_PATHS),
          );
          const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
          const binary = await realpath(command.binary).catch(() => command.binary);
          const inside = { ...sandboxEnv(command.env, credentialVariables, nonce).env, TMPDIR: '/tmp' };
          const args = toBwrapArgs(profile, { argv: [node, bridge, socketPath, String(BRIDGE_PORT), '--', binary, ...command.args], cwd: workDir, env: inside }, { isRoot, pathKinds });
          return { file: settings.bwrapPath ?? 'bwrap', args, env: { PATH: hostEnv['PATH'] ?? '/usr/bin:/bin' } };
        },
        close: async () => {
          const stats = started.stats();
          await started.close();
          await rm(runDir, { recursive: true, force: true });
          return { proxy: stats, masked: [...visible.files, ...visible.directories] };
        },
      };
    } catch (error) {
      await proxy?.close();
      await rm(runDir, { recursive: true, force: true });
      throw error;
    }
  }
  return { open };
}

export type AgentSandbox = ReturnType<typeof createAgentSandbox>;
