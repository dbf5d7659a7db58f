/**
 * The one path every agent CLI (claude-code, codex, opencode, gemini-cli, and
 * any future one) runs through: the L3 decision (contained in bubblewrap, or
 * refused, or — below L3, only with `allowUnsandboxed`, logged — uncontained),
 * the metering proxy in front of the configured model endpoint, the process
 * group (execa, detached, SIGTERM then SIGKILL), the kill at the reservation
 * (decided by the proxy's counter), and the worktree scrub after the
 * implementer. A backend supplies only its argv, its env/config files
 * (written in `configure`, once the model URL is known) and its event mapping.
 */
import { access, constants } from 'node:fs/promises';
import { ZERO_USAGE, type AgentRequest, type AgentResult, type AgentRole } from '../../src/core/ports/index.js';
import type { Level } from '../../src/core/config/schemas.js';
import { isLoopRuntimeError } from '../../src/core/errors.js';
import { createAgentSandbox, type AgentSandbox } from '../../src/adapters/agent-sandbox/agent-sandbox.js';
import { DEAD_ENDPOINT_CODES, type ProviderError } from '../../src/adapters/agent-sandbox/model-proxy.js';
import { requireAgentContainment, type AgentContainment } from '../../src/adapters/agent-sandbox/require-agent-sandbox.js';
import type { TokenCounts } from '../../src/adapters/agent-sandbox/response-usage.js';
import { scrubNewSecrets } from '../../src/adapters/agent-sandbox/scrub-worktree.js';
import type { SandboxDetection } from '../../src/adapters/command-runner/bwrap-runner.js';
import { findExecutable } from '../../src/adapters/command-runner/sandbox-host.js';
import { startCliProcess, type CliExit, type StopReason } from './cli-process.js';

/** What `createLoopRuntime` gives every CLI backend. */
export interface ContainmentSettings {
  /** The loop's level: without a sandbox the agent is refused at L3. */
  level?: Level;
  /** Below L3 only: run the CLI uncontained (behind the same proxy, on 127.0.0.1) when bubblewrap is unavailable (logged). */
  allowUnsandboxed?: boolean;
  /** Where the opt-out note goes. */
  log?: (line: string) => void;
  bwrapPath?: string;
  /** Injected for tests; default: a trial bwrap run. */
  detectSandbox?: () => Promise<SandboxDetection>;
  /** LOOP.md's `worktreesDir` setting, when set. */
  worktreesDir?: string | null;
}

export interface ContainedCliSettings extends ContainmentSettings {
  /** The user's checkout (triage's cwd). */
  projectRoot: string;
  hostEnv: Record<string, string | undefined>;
}

export interface ContainedRun {
  role: AgentRole;
  /** The worktree (implement, check) or the checkout (triage). */
  workDir: string;
  binary: string;
  /** The model endpoint the user configured. */
  upstream: string;
  /** The CLI's environment without the model URL (credential variables become placeholders). */
  env: Record<string, string>;
  credentialVariables?: readonly string[];
  /** Writes the CLI's config for this base URL; returns its argv and whole environment. */
  configure(baseUrl: string, contained: boolean): Promise<{ args: string[]; env: Record<string, string> }> | { args: string[]; env: Record<string, string> };
  /** The CLI's isolated config home (writable inside the sandbox). */
  configHome: string;
  input: string;
  timeoutMs: number;
  killGraceMs?: number;
  signal?: import('../../src/core/ports/index.js').AbortSignalLike;
  /** The reservation: the proxy's counter reaching it stops the process group and cuts its connections. */
  maxTokens: number;
  onLine?: (line: string, stop: (why: StopReason) => void) => void;
  /** Model calls (POSTs) allowed; later ones are refused by the proxy and `turnLimitReached` is set. */
  maxModelCalls?: number;
  /** The request's `onProgress`: told when the CLI retries its model endpoint, as the proxy sees it. */
  onProgress?: AgentRequest['onProgress'];
}

export interface ContainedOutcome {
  ok: true;
  contained: boolean;
  exit: CliExit;
  /** What the provider answered, as the proxy counted it. */
  usage: TokenCounts;
  providerError: ProviderError | null;
  /** Sandbox notes for the transcript (refused hosts, redactions, scrubs). */
  notes: string[];
  /** Worktree files the implementer wrote secret values into (now `[REDACTED]`). */
  scrubbed: string[];
  /** The proxy refused a model call past `maxModelCalls`. */
  turnLimitReached: boolean;
}

export type ContainedRunResult = ContainedOutcome | { ok: false; result: AgentResult };

const failure = (reason: 'not-installed' | 'error', message: string, detail?: Record<string, unknown>): { ok: false; result: AgentResult } => ({
  ok: false,
  result: { ok: false, reason, message, retryable: false, usage: { ...ZERO_USAGE }, ...(detail ? { detail } : {}) },
});

async function resolveBinary(binary: string, env: Record<string, string | undefined>): Promise<string | null> {
  if (!binary.includes('/')) return findExecutable(binary, env);
  try {
    await access(binary, constants.X_OK);
    return binary;
  } catch {
    return null;
  }
}

/**
 * @example
 * ```ts
 * const cli = createContainedCli({ projectRoot, hostEnv: process.env, level: 'L3' });
 * const run = await cli.run({ role, workDir, binary: 'codex', upstream: 'https://api.openai.com/v1', env, configHome,
 *   configure: async (baseUrl) => ({ args, env }), input, timeoutMs, maxTokens, onLine });
 * if (!run.ok) return run.result; // refused (SANDBOX_UNAVAILABLE → not-installed), CLI missing, sandbox failed to start
 * ```
 */
export function createContainedCli(settings: ContainedCliSettings, cli: { name: string; install: string }) {
  let decision: Promise<AgentContainment> | null = null;
  let sandboxes: { contained: AgentSandbox | null; uncontained: AgentSandbox | null } = { contained: null, uncontained: null };

  function sandboxFor(containment: AgentContainment): AgentSandbox {
    const base = { repoRoot: settings.projectRoot, hostEnv: settings.hostEnv, worktreesDir: settings.worktreesDir ?? null };
    if (containment.kind === 'bwrap') return (sandboxes.contained ??= createAgentSandbox({ ...base, bwrapPath: containment.bwrapPath }));
    return (sandboxes.uncontained ??= createAgentSandbox({ ...base, bwrapPath: null }));
  }

  /** Contained, uncontained (the logged opt-out), or the refusal as a result. */
  async function decide(): Promise<AgentContainment | { ok: false; result: AgentResult }> {
    decision ??= requireAgentContainment({
      ...(settings.level ? { level: settings.level } : {}),
      allowUnsandboxed: settings.allowUnsandboxed ?? false,
      ...(settings.log ? { log: settings.log } : {}),
      env: settings.hostEnv,
      ...(settings.bwrapPath ? { bwrapPath: settings.bwrapPath } : {}),
      ...(settings.detectSandbox ? { detect: settings.detectSandbox } : {}),
    });
    try {
      return await decision;
    } catch (error) {
      if (!isLoopRuntimeError(error) || error.code !== 'SANDBOX_UNAVAILABLE') throw error;
      // Like a missing CLI: the loop stops (exit 5) rather than retrying something that cannot run.
      return failure('not-installed', error.message, { code: error.code });
    }
  }

  /** The CLI's path, or the not-installed result. */
  async function findBinary(binary: string, env: Record<string, string | undefined> = {}): Promise<string | { ok: false; result: AgentResult }> {
    const found = await resolveBinary(binary, { ...settings.hostEnv, ...env });
    return found ?? failure('not-installed', `The ${cli.name} CLI "${binary}" was not found. To fix: ${cli.install} or set the backend's "binary" setting to its path.`, { binary });
  }

  async function run(request: ContainedRun): Promise<ContainedRunResult> {
    const containment = await decide();
    if ('ok' in containment) return containment;
    const binary = await findBinary(request.binary, request.env);
    if (typeof binary !== 'string') return binary;
    let upstream: URL;
    try {
      upstream = new URL(request.upstream);
    } catch {
      return failure('error', `The ${cli.name} backend's model endpoint "${request.upstream}" is not a URL. To fix: set its base URL setting to an http(s) URL.`);
    }
    let session: Awaited<ReturnType<AgentSandbox['open']>>;
    let command: { file: string; args: string[]; env: Record<string, string> };
    let stop: (why: StopReason) => void = () => {};
    let stoppedForBudget = false;
    let turnLimitReached = false;
    const maxCalls = request.maxModelCalls;
    try {
      session = await sandboxFor(containment).open({
        role: request.role, workDir: request.workDir, upstream, env: request.env,
        ...(request.credentialVariables ? { credentialVariables: request.credentialVariables } : {}),
        ...(request.onProgress ? { onRetry: (retry: { attempts: number; failure: string; endpoint: string }) => request.onProgress?.({ type: 'retry', ...retry }) } : {}),
        ...(maxCalls !== undefined ? { allowCall: (call: number) => call <= maxCalls || !(turnLimitReached = true) } : {}),
        onUsage: (proxy) => {
          if (stoppedForBudget || proxy.total() < request.maxTokens) return;
          stoppedForBudget = true;
          stop('budget');
          proxy.cut();
        },
      });
    } catch (error) {
      return failure('error', `Could not start the agent sandbox for ${request.role}: ${error instanceof Error ? error.message : String(error)}.`);
    }
    try {
      const configured = await request.configure(session.baseUrl, session.contained);
      command = await session.command({ binary, args: configured.args, env: configured.env, configHome: request.configHome, timeoutMs: request.timeoutMs });
    } catch (error) {
      await session.close();
      return failure('error', `Could not start the agent sandbox for ${request.role}: ${error instanceof Error ? error.message : String(error)}.`);
    }
    const child = startCliProcess({
      binary: command.file, args: command.args, cwd: request.workDir, env: command.env, input: request.input, timeoutMs: request.timeoutMs,
      ...(request.killGraceMs !== undefined ? { killGraceMs: request.killGraceMs } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
      // A stop the backend decides from the CLI's events (its turn limit) also cuts the proxy, as the budget's does:
      // during the kill's grace period the CLI could otherwise go on calling the model, and be charged for it.
      onLine: (line) =>
        request.onLine?.(line, (why) => {
          child.stop(why);
          session.proxy.cut();
        }),
    });
    stop = (why) => child.stop(why);
    const exit = await child.done;
    const usage = session.proxy.counts();
    const providerError = session.proxy.lastError();
    const report = await session.close();
    const notes: string[] = [];
    if (report.proxy.refused.length) notes.push(`sandbox: refused network requests to ${report.proxy.refused.join(', ')}`);
    if (report.proxy.redacted) notes.push(`sandbox: redacted secret values from ${report.proxy.redacted} model request(s)`);
    const scrubbed = request.role === 'implement' ? (await scrubNewSecrets(request.workDir, session.secrets)).scrubbed : [];
    if (scrubbed.length) notes.push(`sandbox: scrubbed secret values the agent wrote into ${scrubbed.join(', ')}`);
    if (exit.notInstalled && !session.contained) return failure('not-installed', `The ${cli.name} CLI "${request.binary}" could not be started. To fix: ${cli.install} or set the backend's "binary" setting to its path.`, { binary: request.binary });
    return { ok: true, contained: session.contained, exit, usage, providerError, notes, scrubbed, turnLimitReached };
  }

  return { run, decide, findBinary };
}

/**
 * The last word on a mapped result, the same for every CLI: a secret copied
 * into the worktree makes the attempt a failure whatever the agent claims,
 * the tokens are the proxy's, and a failure says what the configured
 * endpoint answered (or that it could not be reached).
 */
/** Failures loop-runtime itself caused by stopping the CLI. */
const OUR_STOPS: ReadonlySet<string> = new Set(['max-turns', 'budget', 'timeout', 'aborted']);

export function finishContainedResult(mapped: AgentResult, outcome: ContainedOutcome): AgentResult {
  const usage = { ...outcome.usage, costUsd: mapped.usage.costUsd };
  const rounded = {
    inputTokens: Math.ceil(usage.inputTokens), outputTokens: Math.ceil(usage.outputTokens),
    cacheReadTokens: Math.ceil(usage.cacheReadTokens), cacheWriteTokens: Math.ceil(usage.cacheWriteTokens), costUsd: usage.costUsd,
  };
  if (outcome.scrubbed.length > 0) {
    return {
      ok: false, reason: 'error', retryable: false, usage: rounded, detail: { scrubbed: outcome.scrubbed },
      message: `The implementer wrote secret values into ${outcome.scrubbed.join(', ')}; they were replaced with [REDACTED] in the worktree. Treat the item as hostile and review it by hand.`,
    };
  }
  if (mapped.ok) return { ...mapped, usage: rounded };
  const provider = outcome.providerError;
  // A stop loop-runtime decided (turns, budget, time, a cancel) ends the CLI while a call may be in flight: that call's
  // failure is a consequence, not the cause, and must not turn the stop into "could not reach".
  if (OUR_STOPS.has(mapped.reason)) return { ...mapped, usage: rounded };
  if (provider?.status === 0) return unreachable(mapped, provider, rounded);
  if (!provider || mapped.message.includes(provider.endpoint)) return { ...mapped, usage: rounded };
  const said = provider.status === 0 ? provider.message : `${provider.endpoint} answered HTTP ${provider.status}${provider.code ? ` (${provider.code})` : ''}: ${provider.message}`;
  return { ...mapped, usage: rounded, message: `${mapped.message} The model endpoint: ${said}`, detail: { ...(mapped.detail ?? {}), providerStatus: provider.status, providerEndpoint: provider.endpoint } };
}

/**
 * The configured endpoint never answered: that, and only that, is the message. What the CLI made of it (an HTTP
 * status it saw from loop-runtime's own proxy, "try again later", the proxy's port) would mislead, so it goes to the
 * detail. A refused or unresolvable address is not retried; a reset or timeout may be a blip.
 */
function unreachable(mapped: AgentResult & { ok: false }, provider: ProviderError, usage: AgentResult['usage']): AgentResult {
  const dead = DEAD_ENDPOINT_CODES.has(provider.code ?? '');
  const fix = dead
    ? 'check the URL (the backend\'s baseUrl setting, or the provider\'s *_BASE_URL variable) and that the service at it is running.'
    : 'check that the service is up and reachable from this machine; the next tick tries again.';
  return {
    ...mapped,
    reason: 'error',
    retryable: !dead,
    usage,
    message: `Could not reach ${provider.endpoint} (${provider.message}). To fix: ${fix}`,
    detail: { ...(mapped.detail ?? {}), providerStatus: 0, providerEndpoint: provider.endpoint, ...(provider.code ? { providerCode: provider.code } : {}), agentMessage: mapped.message },
  };
}
