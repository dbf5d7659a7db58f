/**
 * A local fake of the Gemini API (generativelanguage v1beta), enough for the
 * real `gemini` CLI pointed at it with GOOGLE_GEMINI_BASE_URL:
 * `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` streamed as SSE
 * `GenerateContentResponse` chunks (text parts, functionCall parts,
 * usageMetadata on the last chunk, finishReason STOP), errors in Google's
 * `{"error":{code,message,status}}` shape, `:countTokens`, and
 * `:generateContent` for the CLI's side calls (routing, next-speaker and
 * loop checks), which never consume a scripted step.
 */
import type http from 'node:http';
import { sendJson, startHttpFake, type FakeServer, type RecordedRequest } from './http-fake.js';

export type GeminiPart = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

export interface GeminiReply {
  parts: GeminiPart[];
  usage?: { input?: number; output?: number; cached?: number };
  /** Stream the parts, then keep the connection open without a final chunk (a model still generating). */
  hang?: boolean;
  /** Keep streaming text chunks, each adding this many output tokens to usageMetadata, until the client goes away. */
  runawayOutputPerChunk?: number;
}

export interface GeminiErrorReply {
  error: { status: number; code: string; message: string };
}

export type GeminiStep = GeminiReply | GeminiErrorReply | ((request: RecordedRequest) => GeminiReply | GeminiErrorReply);

export const geminiText = (text: string, usage?: GeminiReply['usage']): GeminiReply => ({ parts: [{ text }], ...(usage ? { usage } : {}) });
export const geminiCall = (name: string, args: Record<string, unknown>, usage?: GeminiReply['usage']): GeminiReply => ({
  parts: [{ functionCall: { name, args } }],
  ...(usage ? { usage } : {}),
});

export const geminiErrors = {
  auth: (): GeminiErrorReply => ({ error: { status: 400, code: 'INVALID_ARGUMENT', message: 'API key not valid. Please pass a valid API key.' } }),
  quota: (): GeminiErrorReply => ({
    error: { status: 429, code: 'RESOURCE_EXHAUSTED', message: 'You exceeded your current quota, please check your plan and billing details.' },
  }),
  server: (): GeminiErrorReply => ({ error: { status: 500, code: 'INTERNAL', message: 'An internal error has occurred.' } }),
};

export interface FakeGeminiServer extends FakeServer {
  /** Only the scripted agent calls (streamGenerateContent), in order. */
  streamRequests(): RecordedRequest[];
}

function usageMetadata(usage: GeminiReply['usage']) {
  const input = usage?.input ?? 100;
  const output = usage?.output ?? 20;
  const cached = usage?.cached ?? 0;
  return { promptTokenCount: input + cached, candidatesTokenCount: output, totalTokenCount: input + cached + output, cachedContentTokenCount: cached };
}

function stream(response: http.ServerResponse, reply: GeminiReply, model: string, turn: number): void {
  const chunk = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const candidate = (parts: GeminiPart[], finishReason?: string) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    modelVersion: model,
    responseId: `resp_${turn}`,
  });
  const last = reply.parts.length - 1;
  reply.parts.forEach((part, index) => {
    if (reply.hang || index < last) chunk({ ...candidate([part]), usageMetadata: usageMetadata({ ...reply.usage, output: 1 }) });
    else chunk({ ...candidate([part], 'STOP'), usageMetadata: usageMetadata(reply.usage) });
  });
  if (reply.runawayOutputPerChunk) {
    let output = 0;
    const next = () => {
      if (response.destroyed || response.writableEnded) return;
      output += reply.runawayOutputPerChunk ?? 0;
      chunk({ ...candidate([{ text: 'more words '.repeat(20) }]), usageMetadata: usageMetadata({ ...reply.usage, output }) });
      setTimeout(next, 2);
    };
    response.on('close', () => response.end());
    next();
    return;
  }
  if (reply.hang) {
    // Report the full usage mid-stream, as Gemini does on every chunk, and never finish.
    chunk({ ...candidate([{ text: '…' }]), usageMetadata: usageMetadata(reply.usage) });
    return;
  }
  response.end();
}

/** What the CLI's side calls (`:generateContent` with a JSON schema) expect: a routing or next-speaker decision. */
function sideCallAnswer(request: RecordedRequest): string {
  const text = JSON.stringify(request.body ?? {});
  if (/next_speaker/.test(text)) return JSON.stringify({ reasoning: 'The model finished.', next_speaker: 'user' });
  if (/model_choice/.test(text)) return JSON.stringify({ reasoning: 'simple', model_choice: 'flash' });
  return JSON.stringify({ reasoning: 'no loop', unproductive_state_confidence: 0, unproductive_state_analysis: '' });
}

/**
 * Starts the fake; scripted steps answer the streamed calls in order.
 *
 * @example
 * ```ts
 * const server = await startFakeGeminiServer([geminiCall('read_file', { file_path: 'a.txt' }), geminiText('done')]);
 * // env: GOOGLE_GEMINI_BASE_URL=server.url, GEMINI_API_KEY=dummy
 * ```
 */
export async function startFakeGeminiServer(steps: GeminiStep[]): Promise<FakeGeminiServer> {
  let turn = 0;
  const server = await startHttpFake((request, response) => {
    const match = /^\/v1(?:beta|alpha)?\/models\/([^:/?]+):(streamGenerateContent|generateContent|countTokens)/.exec(request.url);
    if (request.method !== 'POST' || !match) return sendJson(response, 404, { error: { code: 404, message: `no route ${request.method} ${request.url}`, status: 'NOT_FOUND' } });
    const [, model = 'gemini-fake', method] = match;
    if (method === 'countTokens') return sendJson(response, 200, { totalTokens: 100 });
    if (method === 'generateContent') {
      return sendJson(response, 200, {
        candidates: [{ content: { role: 'model', parts: [{ text: sideCallAnswer(request) }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: usageMetadata({ input: 0, output: 0 }),
        modelVersion: model,
      });
    }
    const step = steps[turn++];
    if (!step) return sendJson(response, 500, { error: { code: 500, message: `fake script exhausted at call ${turn}`, status: 'INTERNAL' } });
    const reply = typeof step === 'function' ? step(request) : step;
    if ('error' in reply) return sendJson(response, reply.error.status, { error: { code: reply.error.status, message: reply.error.message, status: reply.error.code } });
    stream(response, reply, model, turn);
  });
  return { ...server, streamRequests: () => server.requests.filter((request) => request.url.includes(':streamGenerateContent')) };
}
