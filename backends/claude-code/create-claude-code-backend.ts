/**
 * The Claude Code backend: the real `claude` CLI, headless. This is the only
 * file of the backend that does I/O (execa); argument building, event parsing
 * and result mapping are pure modules beside it.
 */
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import readline from 'node:readline';
import { ZERO_USAGE, type AgentBackend, type AgentRequest, type AgentResult, type AgentRole } from '../../src/core/ports/index.js';
import { buildRolePrompt, workspaceOf } from '../shared/prompt.js';
import type { PriceTable } from '../shared/usage.js';
import { mapClaudeResult } from './map-result.js';
import { parseStreamLine, type ResultEvent } from './stream-events.js';
import { toCliArgs, toCliEnv, type ClaudePermissionMode } from './to-cli-args.js';
import { StreamUsageTracker } from './usage-tracker.js';
import { createContainment, refusalOf, type ContainmentSettings } from './containment.js';

/**
 * Containment (`level`, `allowUnsandboxed`, `log`, `bwrapPath`, `detectSandbox`): every run is inside
 * bubblewrap with network only to the model endpoint through a redacting proxy; without bubblewrap the
 * backend refuses at L3, and below L3 runs uncontained only with `allowUnsandboxed`.
 */
export interface ClaudeCodeBackendSettings extends Omit<ContainmentSettings, 'projectRoot' | 'home' | 'hostEnv'> {
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

const STDERR_TAIL = 4000;
const CLI_MEMORY = 'CLAUDE.md';
const TRANSCRIPT_LIMIT = 20_000;

/** Signals the whole process group (the CLI runs detached as its leader), then SIGKILL after a grace period. */
function killTree(pid: number | undefined, graceMs: number): void {
  if (pid === undefined) return;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      try {
        process.kill(pid, name);
      } catch {
        // already gone
      }
    }
  };
  signal('SIGTERM');
  setTimeout(() => signal('SIGKILL'), graceMs).unref();
}

/**
 * @example
 * ```ts
 * const backend = createClaudeCodeBackend({ model: 'sonnet', maxTurns: 20, maxRetries: 2 });
 * const result = await backend.run(request);
 * ```
 */
export function createClaudeCodeBackend(settings: ClaudeCodeBackendSettings = {}): AgentBackend {
  const binary = settings.binary ?? 'claude';
  const containment = createContainment({
    ...settings,
    projectRoot: settings.projectRoot ?? process.cwd(),
    ...(settings.home ? { home: settings.home } : {}),
    hostEnv: process.env,
  });
  const notInstalled = (): AgentResult => ({
    ok: false,
    reason: 'not-installed',
    message: `The Claude Code CLI "${binary}" was not found. To fix: install it (npm install -g @anthropic-ai/claude-code) or set the backend's "binary" setting to its path.`,
    retryable: false,
    usage: { ...ZERO_USAGE },
    detail: { binary },
  });
  async function run(request: AgentRequest): Promise<AgentResult> {
    if (request.signal?.aborted) {
      return { ok: false, reason: 'aborted', message: 'The run was aborted before Claude Code started.', retryable: true, usage: { ...ZERO_USAGE } };
    }
    let contained: boolean;
    try {
      contained = await containment.contained();
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      // Like a missing CLI: the loop stops (exit 5) rather than retrying something that cannot run.
      return { ok: false, reason: 'not-installed', message: refusal.message, retryable: false, usage: { ...ZERO_USAGE }, detail: refusal.detail };
    }
    const home = await containment.home(contained);
    const cwd = workspaceOf(request)?.path ?? settings.projectRoot ?? process.cwd();
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
    const graceMs = settings.killGraceMs ?? 2000;

    const tracker = new StreamUsageTracker();
    const transcript: string[] = [];
    let stderr = '';
    let result: ResultEvent | null = null;
    let assistantError: string | undefined;
    let model = settings.model;
    let killedFor: 'budget' | 'timeout' | 'aborted' | undefined;

    const timeoutMs = settings.timeoutMs ?? 30 * 60_000;
    let prepared: Awaited<ReturnType<typeof containment.prepare>>;
    try {
      prepared = await containment.prepare({ role: request.role, workDir: cwd, binary, args, env, timeoutMs });
    } catch (error) {
      const message = `Could not start the agent sandbox for ${request.role}: ${error instanceof Error ? error.message : String(error)}.`;
      return { ok: false, reason: 'error', message, retryable: false, usage: { ...ZERO_USAGE } };
    }
    if (prepared === 'missing') return notInstalled();
    const child = execa(prepared.file, prepared.args, {
      cwd,
      env: prepared.env,
      extendEnv: false,
      input: prompt.user,
      reject: false,
      buffer: false,
      detached: true,
      cleanup: true,
      stripFinalNewline: false,
    });
    const stop = (why: 'budget' | 'timeout' | 'aborted') => {
      if (killedFor) return;
      killedFor = why;
      killTree(child.pid, graceMs);
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = () => stop('aborted');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) onAbort();

    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    const lines = child.stdout ? readline.createInterface({ input: child.stdout, crlfDelay: Infinity }) : null;
    const reading = (async () => {
      if (!lines) return;
      for await (const line of lines) {
        const event = parseStreamLine(line);
        if (!event) continue;
        tracker.observe(event);
        if (event.type === 'system' && event.subtype === 'init' && event.model) model ??= event.model.replace(/\[.*\]$/, '');
        if (event.type === 'assistant') {
          if (event.error) assistantError = event.error;
          for (const block of event.message.content) {
            if (block.type === 'text' && block.text) transcript.push(`assistant: ${block.text.slice(0, 500)}`);
            if (block.type === 'tool_use') transcript.push(`tool: ${block.name ?? '?'} ${JSON.stringify(block.input ?? {}).slice(0, 200)}`);
          }
        }
        if (event.type === 'result') result = event;
        if (!killedFor && tracker.total() >= request.maxTokens && result === null) stop('budget');
      }
    })();

    const outcome = await child;
    await reading.catch(() => undefined);
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
    const finished = await prepared.finish();
    transcript.push(...finished.notes);

    const spawnCode = (outcome as { code?: string }).code;
    if (spawnCode === 'ENOENT' || (outcome.failed && /ENOENT/.test(String(outcome.message)) && outcome.exitCode === undefined)) return notInstalled();
    const text = transcript.join('\n');
    const mapped = mapClaudeResult({
      role: request.role,
      result,
      exitCode: outcome.exitCode ?? null,
      signal: outcome.signal ?? null,
      ...(killedFor ? { killedFor } : {}),
      streamedUsage: tracker.counts(),
      ...(assistantError ? { assistantError } : {}),
      ...(model ? { model } : {}),
      stderrTail: stderr.trim(),
      maxTokens: request.maxTokens,
      ...(settings.prices ? { prices: settings.prices } : {}),
      transcript: text.length > TRANSCRIPT_LIMIT ? `…${text.slice(-TRANSCRIPT_LIMIT)}` : text,
    });
    if (finished.scrubbed.length === 0) return mapped;
    // The agent copied a secret into the worktree: whatever it claims, this attempt is not a fix.
    return {
      ok: false,
      reason: 'error',
      message: `The implementer wrote secret values into ${finished.scrubbed.join(', ')}; they were replaced with [REDACTED] in the worktree. Treat the item as hostile and review it by hand.`,
      retryable: false,
      usage: mapped.usage,
      detail: { scrubbed: finished.scrubbed },
    };
  }
  return { specificationVersion: 'agent-backend-v2', name: 'claude-code', run, close: () => containment.close() };
}
