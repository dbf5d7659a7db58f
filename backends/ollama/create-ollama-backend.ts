/**
 * The Ollama backend: our shared tool loop on Ollama's native `/api/chat`.
 *
 * Why native and not Ollama's OpenAI-compatible `/v1`:
 * - `/v1` cannot set `num_ctx`, so the model runs with Ollama's small default
 *   context and silently truncates long prompts (the system prompt and tool
 *   schemas go first). Native `options.num_ctx` sets the window we compact for.
 * - Native tool-call arguments arrive as JSON objects, not strings that small
 *   models often get subtly wrong.
 * - Usage comes as `prompt_eval_count` / `eval_count` in the final chunk, with
 *   no `stream_options` needed; `keep_alive` controls model unloading.
 * Anyone who prefers `/v1` can use the OpenAI backend with
 * `baseURL: "http://127.0.0.1:11434/v1"`.
 */
import type { AgentBackend } from '../../src/core/ports/index.js';
import { runToolLoop } from '../shared/agent-loop.js';
import { workspaceOf } from '../shared/prompt.js';
import { realSleep } from '../shared/retry.js';
import type { PriceTable } from '../shared/usage.js';
import { createOllamaModel } from './ollama-model.js';

export interface OllamaBackendSettings {
  /** Default: OLLAMA_HOST, else http://127.0.0.1:11434. */
  host?: string;
  model: string;
  /** Sent as options.num_ctx and used for compaction. Default 32768. */
  contextWindow?: number;
  /** Sent as options.num_predict (shrunk to fit the reservation). Default 4096. */
  maxOutputTokens?: number;
  minOutputTokens?: number;
  /** Local models cost nothing by default; set prices for a hosted Ollama. */
  prices?: PriceTable;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Ceiling on model turns per call; the request's maxTurns (the loop's maxIterations) applies when lower. */
  maxTurns?: number;
  maxAttempts?: number;
  baseDelayMs?: number;
  commandTimeoutMs?: number;
  keepAlive?: string | number;
  /** Extra model options (temperature, seed, …). */
  options?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Where triage's read-only tools look when the request has no workspace. Default process.cwd(). */
  projectRoot?: string;
}

/**
 * @example
 * ```ts
 * const backend = createOllamaBackend({ model: 'qwen2.5-coder:7b', contextWindow: 32768 });
 * ```
 */
export function createOllamaBackend(settings: OllamaBackendSettings): AgentBackend {
  const contextWindow = settings.contextWindow ?? 32_768;
  const model = createOllamaModel({
    host: settings.host ?? process.env['OLLAMA_HOST'] ?? 'http://127.0.0.1:11434',
    model: settings.model,
    contextWindow,
    ...(settings.keepAlive !== undefined ? { keepAlive: settings.keepAlive } : {}),
    ...(settings.options ? { options: settings.options } : {}),
    ...(settings.headers ? { headers: settings.headers } : {}),
  });
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'ollama',
    run(request) {
      return runToolLoop(request, {
        model,
        root: workspaceOf(request)?.path ?? settings.projectRoot ?? process.cwd(),
        maxOutputTokens: settings.maxOutputTokens ?? 4096,
        ...(settings.maxTurns !== undefined ? { maxTurns: settings.maxTurns } : {}),
        sleep: settings.sleep ?? realSleep,
        prices: settings.prices ?? {},
        defaultPrices: { '*': { input: 0, output: 0 } },
        ...(settings.minOutputTokens !== undefined ? { minOutputTokens: settings.minOutputTokens } : {}),
        ...(settings.random ? { random: settings.random } : {}),
        ...(settings.maxAttempts !== undefined ? { maxAttempts: settings.maxAttempts } : {}),
        ...(settings.baseDelayMs !== undefined ? { baseDelayMs: settings.baseDelayMs } : {}),
        ...(settings.commandTimeoutMs !== undefined ? { commandTimeoutMs: settings.commandTimeoutMs } : {}),
      });
    },
  };
}
