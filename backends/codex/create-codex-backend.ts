/**
 * The Codex backend: the real `codex exec --json`, headless, one isolated
 * CODEX_HOME per call (config.toml with one Responses API provider, a model
 * catalog, nothing of the user's), a scrubbed environment, and a loopback
 * meter in front of the provider so the process group is killed the moment
 * the reservation is reached. This is the only file of the backend that
 * starts processes; arguments, config, events and results are pure modules.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ZERO_USAGE, type AgentBackend, type AgentRequest, type AgentResult } from '../../src/core/ports/index.js';
import { createIsolatedHome, scrubbedCliEnv, startCliProcess } from '../shared/cli-process.js';
import { buildRolePrompt, workspaceOf } from '../shared/prompt.js';
import type { PriceTable } from '../shared/usage.js';
import { describeItem, parseCodexLine } from './codex-events.js';
import { mapCodexResult } from './map-codex-result.js';
import { startResponsesMeter } from './responses-meter.js';
import { toCodexArgs, toCodexConfigToml, toCodexModelCatalog } from './to-codex-args.js';

export interface CodexBackendSettings {
  /** Path or name of the CLI. Default "codex" (on PATH). */
  binary?: string;
  /** Default "gpt-5.1-codex". */
  model?: string;
  /** The Responses API base URL. Default https://api.openai.com/v1. */
  baseUrl?: string;
  /** The variable holding the API key. Default OPENAI_API_KEY. */
  apiKeyEnv?: string;
  /** Codex's own shell tool (inside Codex's sandbox). Off by default: verification runs in our sandbox. */
  shell?: boolean;
  /** Ceiling for model calls per role call; the request's maxTurns applies when lower. */
  maxTurns?: number;
  /** Codex's retries per request and per stream. Default 2. */
  maxRetries?: number;
  /** Wall-clock limit per role call. Default 30 minutes. */
  timeoutMs?: number;
  killGraceMs?: number;
  /** Extra environment for the child (added after scrubbing). */
  env?: Record<string, string>;
  /**
   * Where the per-call CODEX_HOME directories are made. Default
   * `~/.cache/loop-runtime/codex`: codex refuses to install its sandbox helper
   * under the temp dir, and without it every apply_patch fails.
   */
  homesDir?: string;
  /** cwd for triage. Default process.cwd(). */
  projectRoot?: string;
  prices?: PriceTable;
  contextWindow?: number;
  extraArgs?: string[];
}

const TRANSCRIPT_LIMIT = 20_000;

/**
 * @example
 * ```ts
 * const backend = createCodexBackend({ model: 'gpt-5.1-codex', apiKeyEnv: 'OPENAI_API_KEY' });
 * const result = await backend.run(request);
 * ```
 */
export function createCodexBackend(settings: CodexBackendSettings = {}): AgentBackend {
  const binary = settings.binary ?? 'codex';
  const model = settings.model ?? 'gpt-5.1-codex';
  const apiKeyEnv = settings.apiKeyEnv ?? 'OPENAI_API_KEY';

  async function run(request: AgentRequest): Promise<AgentResult> {
    if (request.signal?.aborted) {
      return { ok: false, reason: 'aborted', message: 'The run was aborted before Codex started.', retryable: true, usage: { ...ZERO_USAGE } };
    }
    const maxTurns = Math.max(1, Math.min(request.maxTurns, settings.maxTurns ?? Infinity));
    const prompt = buildRolePrompt(request, { finish: 'final-message' });
    const home = await createIsolatedHome('call', settings.homesDir ?? path.join(os.homedir(), '.cache', 'loop-runtime', 'codex'));
    let turnLimitReached = false;
    let stopForBudget = () => {};
    const meter = await startResponsesMeter({
      upstream: settings.baseUrl ?? 'https://api.openai.com/v1',
      allowCall: (call) => {
        if (call <= maxTurns) return true;
        turnLimitReached = true;
        return false;
      },
      onChange: (current) => {
        if (current.total() >= request.maxTokens) stopForBudget();
      },
    });
    try {
      const catalogPath = path.join(home.path, 'loop-runtime-models.json');
      await writeFile(path.join(home.path, 'config.toml'), toCodexConfigToml({
        baseUrl: meter.url, apiKeyEnv, model, maxRetries: settings.maxRetries ?? 2, developerInstructions: prompt.system,
      }));
      await writeFile(catalogPath, toCodexModelCatalog(model, { shell: settings.shell ?? false, ...(settings.contextWindow ? { contextWindow: settings.contextWindow } : {}) }));
      const cwd = workspaceOf(request)?.path ?? settings.projectRoot ?? process.cwd();
      const args = toCodexArgs({
        role: request.role, permissions: request.permissions, cwd, model, catalogPath,
        ...(settings.shell !== undefined ? { shell: settings.shell } : {}),
        ...(settings.extraArgs ? { extraArgs: settings.extraArgs } : {}),
      });
      const env = scrubbedCliEnv({ base: process.env, allow: [apiKeyEnv], home: home.path, env: { CODEX_HOME: home.path, ...(settings.env ?? {}) } });

      let finalMessage: string | null = null;
      let completed = false;
      const errors: string[] = [];
      const transcript: string[] = [];
      const cli = startCliProcess({
        binary, args, cwd, env, input: prompt.user,
        timeoutMs: settings.timeoutMs ?? 30 * 60_000,
        ...(settings.killGraceMs !== undefined ? { killGraceMs: settings.killGraceMs } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
        onLine: (line) => {
          const event = parseCodexLine(line);
          if (!event) return;
          if (event.type === 'item.completed') {
            const entry = describeItem(event.item);
            if (entry) transcript.push(entry);
            if (event.item.type === 'agent_message' && typeof event.item['text'] === 'string') finalMessage = event.item['text'];
          } else if (event.type === 'turn.completed') {
            completed = true;
          } else if (event.type === 'turn.failed') {
            errors.push(event.error?.message ?? 'turn failed');
          } else if (event.type === 'error') {
            errors.push(event.message);
          }
        },
      });
      stopForBudget = () => {
        cli.stop('budget');
        meter.cut();
      };
      if (meter.total() >= request.maxTokens) stopForBudget();
      const exit = await cli.done;
      if (exit.notInstalled) {
        return {
          ok: false, reason: 'not-installed', retryable: false, usage: { ...ZERO_USAGE }, detail: { binary },
          message: `The Codex CLI "${binary}" was not found. To fix: install it (npm install @openai/codex) or set the backend's "binary" setting to its path.`,
        };
      }
      const counts = meter.counts();
      const text = transcript.join('\n');
      return mapCodexResult({
        role: request.role, finalMessage, completed, errors,
        exitCode: exit.exitCode, signal: exit.signal,
        ...(exit.killedFor ? { killedFor: exit.killedFor } : {}),
        turnLimitReached, maxTurns,
        providerError: meter.lastError(),
        usage: {
          inputTokens: Math.ceil(counts.inputTokens), outputTokens: Math.ceil(counts.outputTokens),
          cacheReadTokens: Math.ceil(counts.cacheReadTokens), cacheWriteTokens: Math.ceil(counts.cacheWriteTokens),
        },
        model, maxTokens: request.maxTokens, stderrTail: exit.stderrTail, apiKeyEnv,
        ...(settings.prices ? { prices: settings.prices } : {}),
        transcript: text.length > TRANSCRIPT_LIMIT ? `…${text.slice(-TRANSCRIPT_LIMIT)}` : text,
      });
    } finally {
      await meter.close();
      await home.remove();
    }
  }

  return { specificationVersion: 'agent-backend-v2', name: 'codex', run };
}
