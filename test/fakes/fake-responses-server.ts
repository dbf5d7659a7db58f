/**
 * A local fake of the OpenAI Responses API with streaming (POST /v1/responses,
 * `stream: true` → SSE), in the shapes the real codex 0.169 binary parses:
 * response.created, response.output_item.added, response.output_text.delta,
 * response.function_call_arguments.delta / response.custom_tool_call_input.delta,
 * response.output_item.done, response.completed with usage — or an HTTP error,
 * or response.failed. Each model call takes the next scripted step (the last
 * one repeats).
 */
import type http from 'node:http';
import { sendJson, startHttpFake, type FakeServer, type RecordedRequest } from './http-fake.js';

export type ResponsesStep =
  | { text: string; usage?: { input: number; output: number } }
  /** Codex's freeform apply_patch tool (a custom tool call whose input is the patch). */
  | { patch: string; usage?: { input: number; output: number } }
  /** A function call (e.g. Codex's shell tool). */
  | { call: string; arguments: Record<string, unknown>; usage?: { input: number; output: number } }
  /** Streams text deltas without end (`chunk` characters each) until the client goes away. */
  | { runaway: { chunk: number } }
  | { error: { status: number; message: string; code?: string; type?: string } }
  | { failed: { code: string; message: string } };

export interface FakeResponsesServer extends FakeServer {
  /** The model calls (POST …/responses) received so far. */
  modelRequests(): RecordedRequest[];
}

function send(response: http.ServerResponse, event: Record<string, unknown> & { type: string }): boolean {
  return response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

function usageOf(usage: { input: number; output: number } | undefined) {
  const input = usage?.input ?? 120;
  const output = usage?.output ?? 30;
  return { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output };
}

async function stream(step: ResponsesStep, n: number, response: http.ServerResponse): Promise<void> {
  if ('error' in step) {
    sendJson(response, step.error.status, { error: { message: step.error.message, type: step.error.type ?? 'invalid_request_error', code: step.error.code ?? null } });
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `resp_${n}`;
  send(response, { type: 'response.created', response: { id, status: 'in_progress' } });
  if ('failed' in step) {
    send(response, { type: 'response.failed', response: { id, status: 'failed', error: step.failed } });
    response.end();
    return;
  }
  if ('runaway' in step) {
    send(response, { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: `msg_${n}`, role: 'assistant', content: [] } });
    const chunk = 'x'.repeat(step.runaway.chunk);
    while (!response.destroyed && !response.writableEnded) {
      if (!send(response, { type: 'response.output_text.delta', item_id: `msg_${n}`, output_index: 0, content_index: 0, delta: chunk })) {
        await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
      } else {
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return;
  }
  let item: Record<string, unknown>;
  if ('text' in step) {
    item = { type: 'message', id: `msg_${n}`, role: 'assistant', content: [{ type: 'output_text', text: step.text, annotations: [] }] };
    send(response, { type: 'response.output_item.added', output_index: 0, item: { ...item, content: [] } });
    send(response, { type: 'response.output_text.delta', item_id: `msg_${n}`, output_index: 0, content_index: 0, delta: step.text });
  } else if ('patch' in step) {
    item = { type: 'custom_tool_call', id: `ctc_${n}`, call_id: `call_${n}`, name: 'apply_patch', input: step.patch };
    send(response, { type: 'response.output_item.added', output_index: 0, item: { ...item, input: '' } });
    send(response, { type: 'response.custom_tool_call_input.delta', item_id: `ctc_${n}`, output_index: 0, delta: step.patch });
  } else {
    const args = JSON.stringify(step.arguments);
    item = { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name: step.call, arguments: args };
    send(response, { type: 'response.output_item.added', output_index: 0, item: { ...item, arguments: '' } });
    send(response, { type: 'response.function_call_arguments.delta', item_id: `fc_${n}`, output_index: 0, delta: args });
  }
  send(response, { type: 'response.output_item.done', output_index: 0, item });
  send(response, { type: 'response.completed', response: { id, status: 'completed', usage: usageOf(step.usage) } });
  response.end();
}

/**
 * @example
 * ```ts
 * const server = await startFakeResponsesServer([{ patch: '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n' }, { text: 'done' }]);
 * // codex config.toml: base_url = `${server.url}/v1`
 * ```
 */
export async function startFakeResponsesServer(steps: readonly ResponsesStep[]): Promise<FakeResponsesServer> {
  let calls = 0;
  const server = await startHttpFake(async (request, response) => {
    if (request.method !== 'POST' || !/\/responses$/.test(request.url)) {
      sendJson(response, 404, { error: { message: `fake responses server: no route ${request.method} ${request.url}` } });
      return;
    }
    const step = steps[Math.min(calls, steps.length - 1)];
    calls += 1;
    if (!step) throw new Error('no scripted step');
    await stream(step, calls, response);
  });
  return { ...server, modelRequests: () => server.requests.filter((request) => request.method === 'POST' && /\/responses$/.test(request.url)) };
}
