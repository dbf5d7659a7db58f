/**
 * A local fake of the OpenAI API for tests: POST /v1/chat/completions
 * (streamed SSE chunks with tool_call deltas and a final usage-only chunk when
 * `stream_options.include_usage` is set) and POST /v1/responses (streamed
 * Responses events ending in `response.completed`). Replies are scripted per
 * test; errors use OpenAI's error JSON shape.
 */
import type http from 'node:http';
import { sendJson, startHttpFake, type FakeServer, type RecordedRequest } from './http-fake.js';
import type { TokenMeter } from './token-meter.js';

export interface OpenAIReply {
  text?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> | string; id?: string }[];
  usage?: { input: number; output: number; cached?: number };
  finishReason?: string;
  /** Chat Completions: stream content deltas of this many characters without end, until the client goes away. */
  runaway?: { chunk: number };
}

export interface OpenAIErrorReply {
  error: { status: number; message: string; type: string; code: string | null; headers?: Record<string, string> };
}

export type OpenAIStep = OpenAIReply | OpenAIErrorReply | ((request: RecordedRequest) => OpenAIReply | OpenAIErrorReply);

/** 429 rate limit with a retry-after header (seconds). */
export function rateLimited(retryAfterSeconds = 1): OpenAIErrorReply {
  return {
    error: {
      status: 429,
      message: 'Rate limit reached for requests. Please try again in 1s.',
      type: 'requests',
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': String(retryAfterSeconds) },
    },
  };
}

/** 429 that means the account is out of credit: must not be retried. */
export function insufficientQuota(): OpenAIErrorReply {
  return {
    error: {
      status: 429,
      message: 'You exceeded your current quota, please check your plan and billing details.',
      type: 'insufficient_quota',
      code: 'insufficient_quota',
    },
  };
}

export function serverError(status = 500): OpenAIErrorReply {
  return { error: { status, message: 'The server had an error while processing your request.', type: 'server_error', code: null } };
}

function sse(response: http.ServerResponse, data: unknown, event?: string): void {
  response.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

function argumentsText(value: Record<string, unknown> | string): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function streamChat(response: http.ServerResponse, request: RecordedRequest, reply: OpenAIReply, turn: number): void {
  const base = { id: `chatcmpl-${turn}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: request.body?.model ?? 'fake', system_fingerprint: 'fp_fake' };
  const includeUsage = request.body?.stream_options?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse(response, { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) });
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  chunk({ role: 'assistant', content: '', refusal: null });
  if (reply.runaway) {
    const text = 'x'.repeat(reply.runaway.chunk);
    const next = () => {
      if (response.destroyed || response.writableEnded) return;
      chunk({ content: text });
      setTimeout(next, 1);
    };
    next();
    return;
  }
  if (reply.text) {
    // Split text in two deltas, as real streams do.
    const middle = Math.ceil(reply.text.length / 2);
    chunk({ content: reply.text.slice(0, middle) });
    if (reply.text.length > middle) chunk({ content: reply.text.slice(middle) });
  }
  (reply.toolCalls ?? []).forEach((call, index) => {
    const text = argumentsText(call.arguments);
    const split = Math.ceil(text.length / 2);
    chunk({ tool_calls: [{ index, id: call.id ?? `call_${turn}_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] });
    chunk({ tool_calls: [{ index, function: { arguments: text.slice(0, split) } }] });
    chunk({ tool_calls: [{ index, function: { arguments: text.slice(split) } }] });
  });
  chunk({}, reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop'));
  if (includeUsage) {
    const usage = reply.usage ?? { input: 100, output: 20 };
    sse(response, {
      ...base,
      choices: [],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
        prompt_tokens_details: { cached_tokens: usage.cached ?? 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
    });
  }
  response.write('data: [DONE]\n\n');
  response.end();
}

function streamResponses(response: http.ServerResponse, request: RecordedRequest, reply: OpenAIReply, turn: number): void {
  const usage = reply.usage ?? { input: 100, output: 20 };
  const output: Record<string, unknown>[] = [];
  if (reply.text) {
    output.push({ id: `msg_${turn}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: reply.text, annotations: [] }] });
  }
  (reply.toolCalls ?? []).forEach((call, index) => {
    output.push({ id: `fc_${turn}_${index}`, type: 'function_call', status: 'completed', call_id: call.id ?? `call_${turn}_${index}`, name: call.name, arguments: argumentsText(call.arguments) });
  });
  const responseObject = (status: string, items: unknown[], withUsage: boolean) => ({
    id: `resp_${turn}`,
    object: 'response',
    created_at: 1_700_000_000,
    status,
    model: request.body?.model ?? 'fake',
    output: items,
    usage: withUsage
      ? {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: usage.cached ?? 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output,
        }
      : null,
  });
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => sse(response, { type, sequence_number: sequence++, ...data }, type);
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  event('response.created', { response: responseObject('in_progress', [], false) });
  output.forEach((item, index) => {
    event('response.output_item.added', { output_index: index, item });
    if (item['type'] === 'message') event('response.output_text.delta', { output_index: index, content_index: 0, item_id: item['id'], delta: reply.text });
    if (item['type'] === 'function_call') event('response.function_call_arguments.delta', { output_index: index, item_id: item['id'], delta: item['arguments'] });
    event('response.output_item.done', { output_index: index, item });
  });
  event('response.completed', { response: responseObject('completed', output, true) });
  response.end();
}

/**
 * Starts the fake. Steps are consumed in order by model calls (chat or responses). With a `meter`,
 * Chat Completions replies without scripted usage report the tokens metered from the real request body.
 *
 * @example
 * ```ts
 * const server = await startFakeOpenAIServer([{ toolCalls: [{ name: 'done', arguments: { result: 'ok' } }] }]);
 * const backend = createOpenAIBackend({ model: 'gpt-test', baseURL: `${server.url}/v1`, apiKey: 'test' });
 * ```
 */
export async function startFakeOpenAIServer(steps: OpenAIStep[], options: { meter?: TokenMeter } = {}): Promise<FakeServer> {
  let turn = 0;
  return startHttpFake((request, response) => {
    const isChat = request.method === 'POST' && request.url.startsWith('/v1/chat/completions');
    const isResponses = request.method === 'POST' && request.url.startsWith('/v1/responses');
    if (!isChat && !isResponses) return sendJson(response, 404, { error: { message: `no route ${request.url}`, type: 'invalid_request_error', code: null } });
    const step = steps[turn++];
    if (!step) return sendJson(response, 500, { error: { message: `fake script exhausted at call ${turn}`, type: 'server_error', code: 'script_exhausted' } });
    const reply = typeof step === 'function' ? step(request) : step;
    if ('error' in reply) {
      const { status, headers, ...error } = reply.error;
      return sendJson(response, status, { error: { ...error, param: null } }, headers ?? {});
    }
    if (isChat && options.meter && !reply.usage) {
      const call = options.meter.input('openai-chat', request.body);
      const output = options.meter.output(call, { content: reply.text ?? '', tool_calls: reply.toolCalls ?? [] });
      return streamChat(response, request, { ...reply, usage: { input: call.inputTokens, output } }, turn);
    }
    if (isChat) streamChat(response, request, reply, turn);
    else streamResponses(response, request, reply, turn);
  });
}
