/**
 * The Claude Code backend: the real `claude` CLI, headless. This is the only
 * file of the backend that does I/O (execa); argument building, event parsing
 * and result mapping are pure modules beside it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZERO_USAGE, type AgentBackend, type AgentRequest, type AgentResult, type AgentRole } from '../../src/core/ports/index.js';
import { buildRolePrompt, workspaceOf } from '../shared/prompt.js';
import type { PriceTable } from '../shared/usage.js';
import { mapClaudeResult } from './map-result.js';
import { parseStreamLine, type ResultEvent } from './stream-events.js';
import { toCliArgs, toCliEnv, type ClaudePermissionMode } from './to-cli-args.js';
import { createContainedCli, finishContainedResult, type ContainmentSettings } from '../shared/contained-cli.js';

/**
 * Containment (`level`, `allowUnsandboxed`, `log`, `bwrapPath`, `detectSandbox`): every run is inside
 * bubblewrap with network only to the model endpoint through a redacting proxy; without bubblewrap the
 * backend refuses at L3, and below L3 runs uncontained only with `allowUnsandboxed`.
 */
export interface ClaudeCodeBackendSettings extends ContainmentSettings {
  /** Path or name of the CLI. Default "claude" (on PATH). */
  binary?: string;
  model?: string;
  /** Ceiling for `--max-turns`; the request's maxTurns (the loop's maxIterations) applies when lower. */
  maxTurns?: number;
  /** One mode for every role, or per role. Default: dontAsk for triage/check, acceptEdits for implement. */
  permissionMode?: ClaudePermissionMode | Partial<Record<AgentRole, ClaudePermissionMode>>;
  /** `--mcp-config` file(s) or JSON string(s); `--strict-mcp-config` is added. */
  mcpConfig?: string | string[];
  /** Appended after our role prompt in `--append-system-prompt`. */
  appendSystemPrompt?: string;
  /** Isolated home: HOME and CLAUDE_CONFIG_DIR for the child. */
  home?: string;
  /** Extra environment for the child. */
  env?: Record<string, string>;
  /** Start from process.env (default true); false starts from only PATH. */
  inheritEnv?: boolean;
  /** Wall-clock limit per role call. Default 30 minutes. */
  timeoutMs?: number;
  /** Price overrides; otherwise the CLI's own total_cost_usd is used. */
  prices?: PriceTable;
  /** Passed through as CLAUDE_CODE_MAX_RETRIES. */
  maxRetries?: number;
  /** Give the implementer Claude's own Bash tool. Default: on when contained (it runs in the same sandbox), off otherwise. */
  allowBash?: boolean;
  /** cwd for roles without a workspace (triage). Default process.cwd(). */
  projectRoot?: string;
  extraArgs?: string[];
  /** Time between SIGTERM and SIGKILL when stopping the process tree. Default 2000 ms. */
  killGraceMs?: number;
}

const CLI_MEMORY = 'CLAUDE.md';
const TRANSCRIPT_LIMIT = 20_000;
const DEFAULT_ENDPOINT = 'https://api.anthropic.com';

/**
 * @example
 * ```ts
 * const backend = createClaudeCodeBackend({ model: 'sonnet', maxTurns: 20, maxRetries: 2 });
 * const result = await backend.run(request);
 * ```
 */
export function createClaudeCodeBackend(settings: ClaudeCodeBackendSettings = {}): AgentBackend {
  const binary = settings.binary ?? 'claude';
  const projectRoot = settings.projectRoot ?? process.cwd();
  const cli = createContainedCli({ ...settings, projectRoot, hostEnv: process.env }, { name: 'Claude Code', install: 'install it (npm install -g @anthropic-ai/claude-code)' });
  let tempHome: Promise<string> | null = null;

  async function run(request: AgentRequest): Promise<AgentResult> {
    if (request.signal?.aborted) {
      return { ok: false, reason: 'aborted', message: 'The run was aborted before Claude Code started.', retryable: true, usage: { ...ZERO_USAGE } };
    }
    const containment = await cli.decide();
    if ('ok' in containment) return containment.result;
    const contained = containment.kind === 'bwrap';
    // Contained, the CLI always gets its own config home; uncontained (the logged opt-out) it keeps the user's unless one is set.
    const home = settings.home ?? (contained ? await (tempHome ??= mkdtemp(join(tmpdir(), 'loop-claude-home-'))) : undefined);
    const cwd = workspaceOf(request)?.path ?? projectRoot;
    // Claude Code reads CLAUDE.md in its working directory itself (project memory): sending it again doubles it.
    const cliReadsMemory = existsSync(join(cwd, CLI_MEMORY));
    const instructions = cliReadsMemory ? request.instructions.filter((document) => document.name !== CLI_MEMORY) : request.instructions;
    const prompt = buildRolePrompt({ ...request, instructions }, { finish: 'final-message' });
    const systemPrompt = settings.appendSystemPrompt ? `${prompt.system}\n\n${settings.appendSystemPrompt}` : prompt.system;
    const args = toCliArgs({
      role: request.role,
      permissions: request.permissions,
      systemPrompt,
      maxTurns: Math.min(request.maxTurns, settings.maxTurns ?? Infinity),
      ...(settings.model ? { model: settings.model } : {}),
      ...(settings.permissionMode ? { permissionMode: settings.permissionMode } : {}),
      ...(settings.mcpConfig ? { mcpConfig: settings.mcpConfig } : {}),
      allowBash: settings.allowBash ?? contained,
      ...(settings.extraArgs ? { extraArgs: settings.extraArgs } : {}),
    });
    const env = toCliEnv({
      base: settings.inheritEnv === false ? { PATH: process.env['PATH'] } : process.env,
      ...(settings.env ? { env: settings.env } : {}),
      ...(home ? { home } : {}),
      ...(settings.maxRetries !== undefined ? { maxRetries: settings.maxRetries } : {}),
    });
    const upstream = env['ANTHROPIC_BASE_URL'] ?? DEFAULT_ENDPOINT;
    delete env['ANTHROPIC_BASE_URL'];

    const transcript: string[] = [];
    let result: ResultEvent | null = null;
    let assistantError: string | undefined;
    let model = settings.model;
    const outcome = await cli.run({
      role: request.role, ...(request.onProgress ? { onProgress: request.onProgress } : {}), workDir: cwd, binary, upstream, env, configHome: home ?? env['HOME'] ?? projectRoot,
      configure: (baseUrl) => ({ args, env: { ...env, ANTHROPIC_BASE_URL: baseUrl } }),
      input: prompt.user, timeoutMs: settings.timeoutMs ?? 30 * 60_000, killGraceMs: settings.killGraceMs ?? 2000,
      ...(request.signal ? { signal: request.signal } : {}),
      maxTokens: request.maxTokens,
      onLine: (line) => {
        const event = parseStreamLine(line);
        if (!event) return;
        if (event.type === 'system' && event.subtype === 'init' && event.model) model ??= event.model.replace(/\[.*\]$/, '');
        if (event.type === 'assistant') {
          if (event.error) assistantError = event.error;
          for (const block of event.message.content) {
            if (block.type === 'text' && block.text) transcript.push(`assistant: ${block.text.slice(0, 500)}`);
            if (block.type === 'tool_use') transcript.push(`tool: ${block.name ?? '?'} ${JSON.stringify(block.input ?? {}).slice(0, 200)}`);
          }
        }
        if (event.type === 'result') result = event;
      },
    });
    if (!outcome.ok) return outcome.result;
    transcript.push(...outcome.notes);
    const text = transcript.join('\n');
    const final = result as ResultEvent | null;
    const mapped = mapClaudeResult({
      role: request.role,
      // Tokens are what the provider answered, as the proxy counted them: the CLI's own sum is not a second meter.
      result: final ? { ...final, usage: undefined } : null,
      exitCode: outcome.exit.exitCode,
      signal: outcome.exit.signal,
      ...(outcome.exit.killedFor && outcome.exit.killedFor !== 'max-turns' ? { killedFor: outcome.exit.killedFor } : {}),
      streamedUsage: outcome.usage,
      ...(assistantError ? { assistantError } : {}),
      ...(model ? { model } : {}),
      stderrTail: outcome.exit.stderrTail,
      maxTokens: request.maxTokens,
      ...(settings.prices ? { prices: settings.prices } : {}),
      transcript: text.length > TRANSCRIPT_LIMIT ? `…${text.slice(-TRANSCRIPT_LIMIT)}` : text,
    });
    return finishContainedResult(mapped, outcome);
  }
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'claude-code',
    run,
    async close() {
      if (tempHome) await rm(await tempHome, { recursive: true, force: true });
      tempHome = null;
    },
  };
}
