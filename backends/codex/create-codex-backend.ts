/**
 * The Codex backend: the real `codex exec --json`, headless, one isolated
 * CODEX_HOME per call (config.toml with one Responses API provider, a model
 * catalog, nothing of the user's) and a scrubbed environment, run through the
 * shared contained path (`../shared/contained-cli.ts`: bubblewrap, the
 * metering proxy, the process group). This is the only file of the backend
 * that touches the disk; arguments, config, events and results are pure modules.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ZERO_USAGE, type AgentBackend, type AgentRequest, type AgentResult } from '../../src/core/ports/index.js';
import { createIsolatedHome, scrubbedCliEnv } from '../shared/cli-process.js';
import { createContainedCli, finishContainedResult, type ContainmentSettings } from '../shared/contained-cli.js';
import { buildRolePrompt, workspaceOf } from '../shared/prompt.js';
import type { PriceTable } from '../shared/usage.js';
import { describeItem, parseCodexLine } from './codex-events.js';
import { mapCodexResult } from './map-codex-result.js';
import { toCodexArgs, toCodexConfigToml, toCodexModelCatalog } from './to-codex-args.js';

export interface CodexBackendSettings extends ContainmentSettings {
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
  const projectRoot = settings.projectRoot ?? process.cwd();
  const cli = createContainedCli({ ...settings, projectRoot, hostEnv: process.env }, { name: 'Codex', install: 'install it (npm install @openai/codex)' });

  async function run(request: AgentRequest): Promise<AgentResult> {
    if (request.signal?.aborted) {
      return { ok: false, reason: 'aborted', message: 'The run was aborted before Codex started.', retryable: true, usage: { ...ZERO_USAGE } };
    }
    const containment = await cli.decide();
    if ('ok' in containment) return containment.result;
    const maxTurns = Math.max(1, Math.min(request.maxTurns, settings.maxTurns ?? Infinity));
    const prompt = buildRolePrompt(request, { finish: 'final-message' });
    const home = await createIsolatedHome('call', settings.homesDir ?? path.join(os.homedir(), '.cache', 'loop-runtime', 'codex'));
    try {
      const catalogPath = path.join(home.path, 'loop-runtime-models.json');
      await writeFile(catalogPath, toCodexModelCatalog(model, { shell: settings.shell ?? false, ...(settings.contextWindow ? { contextWindow: settings.contextWindow } : {}) }));
      const cwd = workspaceOf(request)?.path ?? projectRoot;
      const env = scrubbedCliEnv({ base: process.env, allow: [apiKeyEnv], home: home.path, env: { CODEX_HOME: home.path, ...(settings.env ?? {}) } });

      let finalMessage: string | null = null;
      let completed = false;
      const errors: string[] = [];
      const transcript: string[] = [];
      const outcome = await cli.run({
        role: request.role, ...(request.onProgress ? { onProgress: request.onProgress } : {}), workDir: cwd, binary, upstream: settings.baseUrl ?? 'https://api.openai.com/v1', env, credentialVariables: [apiKeyEnv],
        configHome: home.path,
        configure: async (baseUrl, contained) => {
          await writeFile(path.join(home.path, 'config.toml'), toCodexConfigToml({
            baseUrl, apiKeyEnv, model, maxRetries: settings.maxRetries ?? 2, developerInstructions: prompt.system,
          }));
          const args = toCodexArgs({
            role: request.role, permissions: request.permissions, cwd, model, catalogPath,
            // Codex's own sandbox (landlock/seccomp) cannot nest inside bubblewrap; ours confines it instead (DESIGN.md).
            ...(contained ? { ownSandbox: false } : {}),
            ...(settings.shell !== undefined ? { shell: settings.shell } : {}),
            ...(settings.extraArgs ? { extraArgs: settings.extraArgs } : {}),
          });
          return { args, env };
        },
        input: prompt.user,
        timeoutMs: settings.timeoutMs ?? 30 * 60_000,
        ...(settings.killGraceMs !== undefined ? { killGraceMs: settings.killGraceMs } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
        maxTokens: request.maxTokens,
        maxModelCalls: maxTurns,
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
      if (!outcome.ok) return outcome.result;
      transcript.push(...outcome.notes);
      const text = transcript.join('\n');
      const killedFor = outcome.exit.killedFor;
      const mapped = mapCodexResult({
        role: request.role, finalMessage, completed, errors,
        exitCode: outcome.exit.exitCode, signal: outcome.exit.signal,
        ...(killedFor && killedFor !== 'max-turns' ? { killedFor } : {}),
        turnLimitReached: outcome.turnLimitReached, maxTurns,
        providerError: outcome.providerError,
        usage: {
          inputTokens: Math.ceil(outcome.usage.inputTokens), outputTokens: Math.ceil(outcome.usage.outputTokens),
          cacheReadTokens: Math.ceil(outcome.usage.cacheReadTokens), cacheWriteTokens: Math.ceil(outcome.usage.cacheWriteTokens),
        },
        model, maxTokens: request.maxTokens, stderrTail: outcome.exit.stderrTail, apiKeyEnv,
        ...(settings.prices ? { prices: settings.prices } : {}),
        transcript: text.length > TRANSCRIPT_LIMIT ? `…${text.slice(-TRANSCRIPT_LIMIT)}` : text,
      });
      return finishContainedResult(mapped, outcome);
    } finally {
      await home.remove();
    }
  }

  return { specificationVersion: 'agent-backend-v2', name: 'codex', run };
}
