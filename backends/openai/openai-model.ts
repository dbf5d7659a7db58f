/**
 * The one file of the OpenAI backend that does I/O: the official `openai` SDK
 * (v6), streamed, behind our `ChatModel` port. The SDK's own retries are off
 * (`maxRetries: 0`) so the shared retry policy — with an injectable sleep —
 * is the only one.
 */
import { ModelCallError, parseRetryAfter } from '../shared/retry.js';
import type { ChatModel, ModelTurn, ModelTurnRequest } from '../shared/model.js';
import { ChatStreamAccumulator, toChatMessages, toChatTools } from './chat-mapper.js';
import { fromResponse, toResponsesInput, toResponsesTools } from './responses-mapper.js';

type OpenAIModule = typeof import('openai');

let cached: Promise<OpenAIModule> | undefined;

/** Imports the SDK on first use so `loop-runtime` starts without it. */
export function loadOpenAISdk(): Promise<OpenAIModule> {
  cached ??= import('openai');
  return cached.catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
}

export interface OpenAIModelSettings {
  apiKey?: string;
  baseURL?: string;
  model: string;
  api: 'chat' | 'responses';
  contextWindow: number;
  /** Which request field carries the output ceiling on Chat Completions. */
  tokenParameter: 'max_tokens' | 'max_completion_tokens';
  timeoutMs: number;
  organization?: string;
  headers?: Record<string, string>;
}

function toModelCallError(sdk: OpenAIModule, error: unknown, endpoint: string): unknown {
  if (error instanceof sdk.APIUserAbortError) return error;
  if (error instanceof sdk.APIConnectionError) {
    // The SDK says only "Connection error.": name the endpoint the user configured and what the socket said.
    const cause = error.cause instanceof Error ? ((error.cause as Error & { cause?: unknown }).cause instanceof Error ? ((error.cause as Error & { cause: Error }).cause.message) : error.cause.message) : undefined;
    return new ModelCallError(`cannot reach the OpenAI-compatible endpoint ${endpoint}: ${error.message.replace(/\.$/, '')}${cause ? ` (${cause})` : ''}`, { cause: error });
  }
  if (error instanceof sdk.APIError) {
    const headers = error.headers as Headers | undefined;
    const body = (error.error ?? {}) as { code?: unknown; type?: unknown };
    const code = error.code ?? (typeof body.code === 'string' ? body.code : undefined);
    const type = error.type ?? (typeof body.type === 'string' ? body.type : undefined);
    const retryAfterMs = headers ? parseRetryAfter((name) => headers.get(name)) : undefined;
    return new ModelCallError(error.message, {
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(code ? { code } : {}),
      ...(type ? { type } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      cause: error,
    });
  }
  return error;
}

/** Creates a streamed Chat Completions or Responses model on an SDK client. */
export async function createOpenAIModel(settings: OpenAIModelSettings): Promise<ChatModel> {
  const sdk = await loadOpenAISdk();
  const client = new sdk.OpenAI({
    apiKey: settings.apiKey ?? process.env['OPENAI_API_KEY'] ?? (settings.baseURL ? 'not-needed' : undefined),
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    ...(settings.organization ? { organization: settings.organization } : {}),
    ...(settings.headers ? { defaultHeaders: settings.headers } : {}),
    maxRetries: 0,
    timeout: settings.timeoutMs,
  });

  async function callChat(request: ModelTurnRequest): Promise<ModelTurn> {
    const ceiling = settings.tokenParameter === 'max_tokens' ? { max_tokens: request.maxOutputTokens } : { max_completion_tokens: request.maxOutputTokens };
    const stream = await client.chat.completions.create(
      {
        model: settings.model,
        messages: toChatMessages(request.messages),
        ...(request.tools.length ? { tools: toChatTools(request.tools) } : {}),
        ...ceiling,
        stream: true,
        stream_options: { include_usage: true },
      },
      request.signal ? { signal: request.signal } : {},
    );
    const accumulator = new ChatStreamAccumulator();
    for await (const chunk of stream) accumulator.push(chunk);
    return accumulator.result();
  }

  async function callResponses(request: ModelTurnRequest): Promise<ModelTurn> {
    const { instructions, input } = toResponsesInput(request.messages);
    const stream = await client.responses.create(
      {
        model: settings.model,
        instructions,
        input,
        ...(request.tools.length ? { tools: toResponsesTools(request.tools) } : {}),
        max_output_tokens: request.maxOutputTokens,
        store: false,
        stream: true,
      },
      request.signal ? { signal: request.signal } : {},
    );
    for await (const event of stream) {
      if ((event.type === 'response.completed' || event.type === 'response.incomplete') && event.response) return fromResponse(event.response);
      if (event.type === 'response.failed') {
        const problem = event.response.error;
        throw new ModelCallError(problem?.message ?? 'the response failed', { status: 500, ...(problem?.code ? { code: problem.code } : {}) });
      }
      if (event.type === 'error') throw new ModelCallError(event.message ?? 'stream error', { ...(event.code ? { code: event.code } : {}) });
    }
    throw new ModelCallError('the stream ended without a response.completed event');
  }

  return {
    model: settings.model,
    contextWindow: settings.contextWindow,
    endpoint: settings.baseURL ?? 'https://api.openai.com/v1',
    async call(request) {
      try {
        return settings.api === 'responses' ? await callResponses(request) : await callChat(request);
      } catch (error) {
        throw toModelCallError(sdk, error, settings.baseURL ?? 'https://api.openai.com/v1');
      }
    },
  };
}
