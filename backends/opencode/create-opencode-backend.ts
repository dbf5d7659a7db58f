/**
 * The OpenCode backend: the real `opencode run --format json`, headless,
 * through the shared contained path (`../shared/contained-cli.ts`). The only
 * file of the backend that touches the disk: the config, args and
 * environment, event parsing and result mapping are pure modules beside it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ZERO_USAGE, type AgentBackend, type AgentRequest, type AgentResult } from '../../src/core/ports/index.js';
import { buildRolePrompt, workspaceOf } from '../shared/prompt.js';
import type { PriceTable } from '../shared/usage.js';
import { mapCliResult } from './map-cli-result.js';
import { OpenCodeUsageTracker, parseOpenCodeLine, type OpenCodeErrorEvent } from './opencode-events.js';
import { createContainedCli, finishContainedResult, type ContainmentSettings } from '../shared/contained-cli.js';
import { toOpenCodeArgs, toOpenCodeConfig, toOpenCodeEnv, withProviderBaseUrl, providerEndpoint } from './to-opencode-config.js';

export interface OpenCodeBackendSettings extends ContainmentSettings {
  /** Path or name of the CLI. Default "opencode" (on PATH). */
  binary?: string;
  /** `provider/model`, e.g. "anthropic/claude-sonnet-4-5". Default: opencode's own choice. */
  model?: string;
  /** opencode's `provider` config block (custom providers, `options.baseURL`), passed through. */
  provider?: Record<string, unknown>;
  /** Ceiling for turns; the request's maxTurns applies when lower. */
  maxTurns?: number;
  /** Isolated home (HOME and the XDG directories). Default: a temporary directory per backend, removed on close(). */
  home?: string;
  /** Extra variables for the child (set after the scrub). */
  env?: Record<string, string>;
  /** Variables passed through the scrub by exact name, besides the provider keys. */
  passEnv?: string[];
  /** Give the implementer opencode's bash tool. Off by default: it bypasses our sandboxed CommandRunner. */
  allowBash?: boolean;
  /** Wall-clock limit per role call. Default 30 minutes. */
  timeoutMs?: number;
  killGraceMs?: number;
  prices?: PriceTable;
  /** cwd for roles without a workspace (triage). Default process.cwd(). */
  projectRoot?: string;
  extraArgs?: string[];
}

const TRANSCRIPT_LIMIT = 20_000;
const AUTH_FIX = 'set the provider\'s key variable (e.g. ANTHROPIC_API_KEY or OPENAI_API_KEY) for loop-runtime, or run `opencode auth login` with the backend\'s "home" setting as HOME.';

function errorOf(event: OpenCodeErrorEvent): { name?: string; message: string; status?: number; retryable?: boolean } {
  const data = event.error?.data;
  return {
    ...(event.error?.name ? { name: event.error.name } : {}),
    message: data?.message ?? event.error?.name ?? 'unknown error',
    ...(data?.statusCode !== undefined ? { status: data.statusCode } : {}),
    ...(data?.isRetryable !== undefined ? { retryable: data.isRetryable } : {}),
  };
}

/**
 * @example
 * ```ts
 * const backend = createOpenCodeBackend({ model: 'anthropic/claude-sonnet-4-5', maxTurns: 20 });
 * const result = await backend.run(request);
 * await backend.close?.();
 * ```
 */
export function createOpenCodeBackend(settings: OpenCodeBackendSettings = {}): AgentBackend {
  const binary = settings.binary ?? 'opencode';
  const projectRoot = settings.projectRoot ?? process.cwd();
  const cli = createContainedCli({ ...settings, projectRoot, hostEnv: process.env }, { name: 'OpenCode', install: 'install it (npm install -g opencode-ai)' });
  let ownHome: Promise<string> | undefined;
  const homeDir = () => (settings.home ? Promise.resolve(settings.home) : (ownHome ??= mkdtemp(path.join(tmpdir(), 'loop-opencode-home-'))));

  async function run(request: AgentRequest): Promise<AgentResult> {
    if (request.signal?.aborted) {
      return { ok: false, reason: 'aborted', message: 'The run was aborted before OpenCode started.', retryable: true, usage: { ...ZERO_USAGE } };
    }
    const found = await cli.findBinary(binary);
    if (typeof found !== 'string') return found.result;
    const endpoint = providerEndpoint(settings.model, settings.provider);
    if (!endpoint.ok) return { ok: false, reason: 'error', message: endpoint.message, retryable: false, usage: { ...ZERO_USAGE } };
    const maxTurns = Math.min(request.maxTurns, settings.maxTurns ?? Infinity);
    const prompt = buildRolePrompt(request, { finish: 'final-message' });
    const home = await homeDir();
    await mkdir(path.join(home, 'config'), { recursive: true });
    const configPath = path.join(home, 'config', `loop-${request.role}.json`);
    const env = toOpenCodeEnv({
      base: process.env,
      home,
      configPath,
      ...(settings.passEnv ? { passEnv: settings.passEnv } : {}),
      ...(settings.env ? { env: settings.env } : {}),
    });

    const tracker = new OpenCodeUsageTracker();
    const texts: string[] = [];
    const transcript: string[] = [];
    let error: ReturnType<typeof errorOf> | undefined;
    const outcome = await cli.run({
      role: request.role, ...(request.onProgress ? { onProgress: request.onProgress } : {}), workDir: workspaceOf(request)?.path ?? projectRoot, binary, upstream: endpoint.url, env, configHome: home,
      configure: async (baseUrl) => {
        const config = toOpenCodeConfig({
          role: request.role,
          permissions: request.permissions,
          systemPrompt: prompt.system,
          maxTurns,
          ...(settings.model ? { model: settings.model } : {}),
          // Every model call goes to the metering proxy, whatever the provider block said.
          provider: withProviderBaseUrl(endpoint.provider, settings.provider, baseUrl),
          ...(settings.allowBash !== undefined ? { allowBash: settings.allowBash } : {}),
        });
        await writeFile(configPath, JSON.stringify(config, null, 2));
        return { args: toOpenCodeArgs({ role: request.role, ...(settings.model ? { model: settings.model } : {}), ...(settings.extraArgs ? { extraArgs: settings.extraArgs } : {}) }), env };
      },
      input: prompt.user,
      timeoutMs: settings.timeoutMs ?? 30 * 60_000,
      killGraceMs: settings.killGraceMs ?? 2000,
      ...(request.signal ? { signal: request.signal } : {}),
      maxTokens: request.maxTokens,
      onLine(line, stop) {
        const event = parseOpenCodeLine(line);
        if (!event) return;
        tracker.observe(event);
        if (event.type === 'text' && event.part.text) {
          texts.push(event.part.text);
          transcript.push(`assistant: ${event.part.text.slice(0, 500)}`);
        }
        if (event.type === 'tool_use') transcript.push(`tool: ${event.part.tool} ${JSON.stringify(event.part.state.input ?? {}).slice(0, 200)}`);
        if (event.type === 'error') error = errorOf(event);
        if (event.type === 'step_finish' && event.part.reason === 'tool-calls' && tracker.toolSteps >= maxTurns) stop('max-turns');
      },
    });
    if (!outcome.ok) return outcome.result;
    transcript.push(...outcome.notes);
    const text = transcript.join('\n');
    const mapped = mapCliResult({
      cli: 'OpenCode',
      role: request.role,
      // The answer is the last text part: earlier ones narrate tool use.
      text: texts.at(-1) ?? '',
      usage: outcome.usage,
      reportedCost: tracker.reportedCost(),
      ...(settings.model ? { model: settings.model.split('/').slice(1).join('/') || settings.model } : {}),
      ...(settings.prices ? { prices: settings.prices } : {}),
      ...(error ? { error } : {}),
      exitCode: outcome.exit.exitCode,
      signal: outcome.exit.signal,
      ...(outcome.exit.killedFor ? { stoppedFor: outcome.exit.killedFor } : {}),
      turns: tracker.steps,
      maxTurns,
      maxTokens: request.maxTokens,
      stderrTail: outcome.exit.stderrTail,
      transcript: text.length > TRANSCRIPT_LIMIT ? `…${text.slice(-TRANSCRIPT_LIMIT)}` : text,
      authFix: AUTH_FIX,
    });
    return finishContainedResult(mapped, outcome);
  }

  return {
    specificationVersion: 'agent-backend-v2',
    name: 'opencode',
    run,
    async close() {
      if (ownHome) await rm(await ownHome, { recursive: true, force: true });
      ownHome = undefined;
    },
  };
}
