/**
 * The OpenAI backend: our shared tool loop on the official SDK. `baseURL`
 * makes any OpenAI-compatible server work (vLLM, llama.cpp, LM Studio,
 * Ollama's /v1).
 */
import { ZERO_USAGE, type AgentBackend } from '../../src/core/ports/index.js';
import { runToolLoop } from '../shared/agent-loop.js';
import { workspaceOf } from '../shared/prompt.js';
import type { ChatModel } from '../shared/model.js';
import { realSleep } from '../shared/retry.js';
import type { PriceTable } from '../shared/usage.js';
import { createOpenAIModel } from './openai-model.js';

export interface OpenAIBackendSettings {
  /** Defaults to OPENAI_API_KEY. */
  apiKey?: string;
  baseURL?: string;
  model: string;
  /** Chat Completions (default) or the Responses API. */
  api?: 'chat' | 'responses';
  /** Output ceiling per call. Default 4096. */
  maxOutputTokens?: number;
  /** Below this output ceiling a call is not made (budget). Default min(1024, maxOutputTokens). */
  minOutputTokens?: number;
  /** Context window for compaction. Default 128000. */
  contextWindow?: number;
  /** Default: max_completion_tokens against OpenAI, max_tokens against a custom baseURL. */
  tokenParameter?: 'max_tokens' | 'max_completion_tokens';
  prices?: PriceTable;
  /** Injected sleep for retries (tests pass a fake). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Ceiling on model turns per call; the request's maxTurns (the loop's maxIterations) applies when lower. */
  maxTurns?: number;
  maxAttempts?: number;
  baseDelayMs?: number;
  timeoutMs?: number;
  commandTimeoutMs?: number;
  organization?: string;
  headers?: Record<string, string>;
  /** Where triage's read-only tools look when the request has no workspace. Default: process.cwd(). */
  projectRoot?: string;
}

/**
 * @example
 * ```ts
 * const backend = createOpenAIBackend({ model: 'gpt-4.1-mini' });
 * const local = createOpenAIBackend({ model: 'qwen2.5-coder', baseURL: 'http://127.0.0.1:8000/v1' });
 * ```
 */
export function createOpenAIBackend(settings: OpenAIBackendSettings): AgentBackend {
  let model: Promise<ChatModel> | undefined;
  const getModel = () =>
    (model ??= createOpenAIModel({
      model: settings.model,
      api: settings.api ?? 'chat',
      contextWindow: settings.contextWindow ?? 128_000,
      tokenParameter: settings.tokenParameter ?? (settings.baseURL ? 'max_tokens' : 'max_completion_tokens'),
      timeoutMs: settings.timeoutMs ?? 600_000,
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
      ...(settings.organization ? { organization: settings.organization } : {}),
      ...(settings.headers ? { headers: settings.headers } : {}),
    }));
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'openai',
    async run(request) {
      let chat: ChatModel;
      try {
        chat = await getModel();
      } catch (error) {
        model = undefined;
        const missing = (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND';
        return {
          ok: false,
          reason: missing ? 'not-installed' : 'auth',
          message: missing
            ? 'The OpenAI backend needs the "openai" package, which is not installed. To fix: npm install openai@6'
            : `The OpenAI client could not be created: ${(error as Error).message}. To fix: set OPENAI_API_KEY or the backend's apiKey setting.`,
          retryable: false,
          usage: { ...ZERO_USAGE },
        };
      }
      return runToolLoop(request, {
        model: chat,
        root: workspaceOf(request)?.path ?? settings.projectRoot ?? process.cwd(),
        maxOutputTokens: settings.maxOutputTokens ?? 4096,
        ...(settings.minOutputTokens !== undefined ? { minOutputTokens: settings.minOutputTokens } : {}),
        ...(settings.maxTurns !== undefined ? { maxTurns: settings.maxTurns } : {}),
        sleep: settings.sleep ?? realSleep,
        ...(settings.random ? { random: settings.random } : {}),
        ...(settings.prices ? { prices: settings.prices } : {}),
        ...(settings.maxAttempts !== undefined ? { maxAttempts: settings.maxAttempts } : {}),
        ...(settings.baseDelayMs !== undefined ? { baseDelayMs: settings.baseDelayMs } : {}),
        ...(settings.commandTimeoutMs !== undefined ? { commandTimeoutMs: settings.commandTimeoutMs } : {}),
      });
    },
  };
}
