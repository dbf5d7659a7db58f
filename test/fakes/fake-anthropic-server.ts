/**
 * A local fake of the Anthropic Messages API, enough for the real `claude`
 * CLI: HEAD/GET /api/hello (its connectivity probe), POST /v1/messages
 * (`?beta=true`) streamed as real Messages SSE — message_start,
 * content_block_start/delta/stop (text_delta, input_json_delta for tool_use),
 * message_delta with usage, message_stop — and errors in the real
 * `{"type":"error","error":{type,message}}` shape. The shapes were checked
 * against what the CLI 2.1.x sends and accepts.
 */
import type http from 'node:http';
import { sendJson, startHttpFake, type FakeServer, type RecordedRequest } from './http-fake.js';
import type { TokenMeter } from './token-meter.js';

export type AnthropicBlock = { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string };

export interface AnthropicReply {
  content: AnthropicBlock[];
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  stopReason?: string;
  /** Send everything up to message_delta, then keep the connection open (a model that is still "generating"). */
  hang?: boolean;
  /** After message_start, stream text deltas of this many characters without end, until the client goes away. */
  runaway?: { chunk: number };
}

export interface AnthropicErrorReply {
  error: { status: number; type: string; message: string };
}

export type AnthropicStep = AnthropicReply | AnthropicErrorReply | ((request: RecordedRequest) => AnthropicReply | AnthropicErrorReply);

export const anthropicErrors = {
  overloaded: (): AnthropicErrorReply => ({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }),
  server: (): AnthropicErrorReply => ({ error: { status: 500, type: 'api_error', message: 'Internal server error' } }),
  auth: (): AnthropicErrorReply => ({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }),
  rateLimit: (): AnthropicErrorReply => ({ error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } }),
};

export const text = (value: string, usage?: AnthropicReply['usage']): AnthropicReply => ({ content: [{ type: 'text', text: value }], ...(usage ? { usage } : {}) });
export const toolUse = (name: string, input: Record<string, unknown>, usage?: AnthropicReply['usage']): AnthropicReply => ({
  content: [{ type: 'tool_use', name, input }],
  ...(usage ? { usage } : {}),
});

/** A scripted reply's usage, or with a meter and no scripted usage, the tokens metered from the request and reply. */
function usageOf(request: RecordedRequest, reply: AnthropicReply, meter: TokenMeter | undefined): Required<NonNullable<AnthropicReply['usage']>> {
  const call = meter?.input('anthropic-messages', request.body);
  if (call && meter && !reply.usage) return { input: call.inputTokens, output: meter.output(call, reply.content), cacheRead: 0, cacheWrite: 0 };
  return { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, ...reply.usage };
}

function streamMessage(response: http.ServerResponse, request: RecordedRequest, reply: AnthropicReply, turn: number, meter?: TokenMeter): void {
  const usage = usageOf(request, reply, meter);
  const event = (type: string, data: Record<string, unknown>) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_fake_${turn}` });
  event('message_start', {
    message: {
      id: `msg_fake_${turn}`,
      type: 'message',
      role: 'assistant',
      model: request.body?.model ?? 'claude-fake',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: 1, cache_creation_input_tokens: usage.cacheWrite, cache_read_input_tokens: usage.cacheRead },
    },
  });
  event('ping', {});
  if (reply.runaway) {
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    const text = 'x'.repeat(reply.runaway.chunk);
    const next = () => {
      if (response.destroyed || response.writableEnded) return;
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
      setTimeout(next, 1);
    };
    next();
    return;
  }
  reply.content.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      const middle = Math.ceil(block.text.length / 2);
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text.slice(0, middle) } });
      if (block.text.length > middle) event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text.slice(middle) } });
    } else {
      event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id ?? `toolu_fake_${turn}_${index}`, name: block.name, input: {} } });
      const json = JSON.stringify(block.input);
      const middle = Math.ceil(json.length / 2);
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, middle) } });
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(middle) } });
    }
    event('content_block_stop', { index });
  });
  const stopReason = reply.stopReason ?? (reply.content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn');
  event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } });
  if (reply.hang) return;
  event('message_stop', {});
  response.end();
}

/**
 * Starts the fake. Each POST /v1/messages consumes the next step. With a `meter`, replies without
 * scripted usage report the tokens metered from the real request body (see token-meter.ts).
 *
 * @example
 * ```ts
 * const server = await startFakeAnthropicServer([toolUse('Write', { file_path, content: 'x' }), text('done')]);
 * // run claude with ANTHROPIC_BASE_URL=server.url
 * ```
 */
export async function startFakeAnthropicServer(
  steps: AnthropicStep[],
  options: { meter?: TokenMeter } = {},
): Promise<FakeServer & { messageRequests(): RecordedRequest[] }> {
  let turn = 0;
  const server = await startHttpFake((request, response) => {
    const route = request.url.split('?')[0];
    if ((request.method === 'HEAD' || request.method === 'GET') && (route === '/api/hello' || route === '/')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      return void response.end(request.method === 'HEAD' ? undefined : '{}');
    }
    if (request.method === 'POST' && route === '/v1/messages/count_tokens') return sendJson(response, 200, { input_tokens: 100 });
    if (request.method !== 'POST' || route !== '/v1/messages') {
      return sendJson(response, 404, { type: 'error', error: { type: 'not_found_error', message: `Not found: ${request.url}` } });
    }
    const step = steps[turn++];
    const reply = step === undefined ? anthropicErrors.server() : typeof step === 'function' ? step(request) : step;
    if ('error' in reply) {
      return sendJson(response, reply.error.status, { type: 'error', error: { type: reply.error.type, message: reply.error.message }, request_id: `req_fake_${turn}` }, {
        'request-id': `req_fake_${turn}`,
        ...(reply.error.status === 429 ? { 'retry-after': '1' } : {}),
      });
    }
    if (request.body?.stream !== true) {
      const usage = usageOf(request, reply, options.meter);
      return sendJson(response, 200, {
        id: `msg_fake_${turn}`, type: 'message', role: 'assistant', model: request.body?.model ?? 'claude-fake',
        content: reply.content.map((block, index) => (block.type === 'text' ? block : { ...block, id: block.id ?? `toolu_fake_${turn}_${index}` })),
        stop_reason: 'end_turn', stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      });
    }
    streamMessage(response, request, reply, turn, options.meter);
  });
  return {
    ...server,
    messageRequests: () => server.requests.filter((request) => request.method === 'POST' && request.url.startsWith('/v1/messages')),
  };
}
