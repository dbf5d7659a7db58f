/**
 * A local fake of Ollama's native API: POST /api/chat streamed as NDJSON —
 * content chunks, tool_calls with object arguments, and a final `done: true`
 * chunk with `done_reason`, `prompt_eval_count` and `eval_count`. Errors are
 * `{"error": "…"}` with an HTTP status, or an `{"error"}` line mid-stream.
 */
import { sendJson, startHttpFake, type FakeServer, type RecordedRequest } from './http-fake.js';

export interface OllamaReply {
  text?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  usage?: { input: number; output: number };
  doneReason?: string;
  /** Send an `{"error"}` line instead of the final chunk. */
  streamError?: string;
}

export interface OllamaErrorReply {
  error: { status: number; message: string };
}

export type OllamaStep = OllamaReply | OllamaErrorReply | ((request: RecordedRequest) => OllamaReply | OllamaErrorReply);

export async function startFakeOllamaServer(steps: OllamaStep[]): Promise<FakeServer> {
  let turn = 0;
  return startHttpFake((request, response) => {
    if (request.method === 'GET' && request.url === '/api/version') return sendJson(response, 200, { version: '0.12.0' });
    if (request.method !== 'POST' || request.url !== '/api/chat') return sendJson(response, 404, { error: `404 page not found` });
    const step = steps[turn++];
    const reply = step === undefined ? { error: { status: 500, message: `fake script exhausted at call ${turn}` } } : typeof step === 'function' ? step(request) : step;
    if ('error' in reply) return sendJson(response, reply.error.status, { error: reply.error.message });
    const model = request.body?.model ?? 'fake';
    const createdAt = '2025-01-01T00:00:00.000000Z';
    const line = (data: Record<string, unknown>) => response.write(`${JSON.stringify({ model, created_at: createdAt, ...data })}\n`);
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const words = (reply.text ?? '').match(/\S+\s*/g) ?? [];
    for (const word of words) line({ message: { role: 'assistant', content: word }, done: false });
    if (reply.toolCalls?.length) {
      line({
        message: {
          role: 'assistant',
          content: '',
          tool_calls: reply.toolCalls.map((call, index) => ({ id: `call_ollama_${turn}_${index}`, function: { index, name: call.name, arguments: call.arguments } })),
        },
        done: false,
      });
    }
    if (reply.streamError) {
      response.write(`${JSON.stringify({ error: reply.streamError })}\n`);
      return void response.end();
    }
    line({
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: reply.doneReason ?? 'stop',
      total_duration: 1_000_000,
      load_duration: 10_000,
      prompt_eval_count: reply.usage?.input ?? 200,
      prompt_eval_duration: 100_000,
      eval_count: reply.usage?.output ?? 30,
      eval_duration: 500_000,
    });
    response.end();
  });
}
