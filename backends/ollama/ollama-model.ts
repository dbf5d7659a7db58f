/**
 * The one file of the Ollama backend that does I/O: `fetch` to the native
 * `/api/chat`, streamed as NDJSON.
 */
import type { ChatModel, ModelTurn, ModelTurnRequest } from '../shared/model.js';
import { ModelCallError } from '../shared/retry.js';
import { OllamaStreamAccumulator, toOllamaMessages, toOllamaTools, type OllamaChunk } from './ollama-mapper.js';

export interface OllamaModelSettings {
  host: string;
  model: string;
  contextWindow: number;
  keepAlive?: string | number;
  options?: Record<string, unknown>;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

/** Accepts "127.0.0.1:11434", "http://host:11434/" or "https://…"; returns a base URL without a trailing slash. */
export function normalizeOllamaHost(host: string): string {
  const withScheme = /^https?:\/\//i.test(host) ? host : `http://${host}`;
  return withScheme.replace(/\/+$/, '');
}

async function* ndjson(body: ReadableStream<Uint8Array>): AsyncGenerator<OllamaChunk> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    buffer += decoder.decode(chunk.value, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) yield JSON.parse(line) as OllamaChunk;
    }
  }
  const rest = (buffer + decoder.decode()).trim();
  if (rest) yield JSON.parse(rest) as OllamaChunk;
}

export function createOllamaModel(settings: OllamaModelSettings): ChatModel {
  const base = normalizeOllamaHost(settings.host);
  const doFetch = settings.fetch ?? fetch;
  let turn = 0;
  return {
    model: settings.model,
    contextWindow: settings.contextWindow,
    endpoint: base,
    async call(request: ModelTurnRequest): Promise<ModelTurn> {
      turn++;
      const body = {
        model: settings.model,
        messages: toOllamaMessages(request.messages),
        ...(request.tools.length ? { tools: toOllamaTools(request.tools) } : {}),
        stream: true,
        options: { ...settings.options, num_ctx: settings.contextWindow, num_predict: request.maxOutputTokens },
        ...(settings.keepAlive !== undefined ? { keep_alive: settings.keepAlive } : {}),
      };
      let response: Response;
      try {
        response = await doFetch(`${base}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...settings.headers },
          body: JSON.stringify(body),
          ...(request.signal ? { signal: request.signal } : {}),
        });
      } catch (error) {
        throw new ModelCallError(`cannot reach Ollama at ${base}: ${error instanceof Error ? (error.cause as Error | undefined)?.message ?? error.message : String(error)}`, { cause: error });
      }
      if (!response.ok || !response.body) {
        const text = await response.text().catch(() => '');
        let message = text;
        try {
          message = (JSON.parse(text) as { error?: string }).error ?? text;
        } catch {
          // not JSON
        }
        const hint = response.status === 404 ? ` (run \`ollama pull ${settings.model}\`)` : '';
        throw new ModelCallError(`Ollama answered HTTP ${response.status}: ${message}${hint}`, { status: response.status });
      }
      const accumulator = new OllamaStreamAccumulator(`call_${turn}`);
      for await (const chunk of ndjson(response.body)) {
        if (chunk.error) throw new ModelCallError(`Ollama stream error: ${chunk.error}`, { status: 500 });
        accumulator.push(chunk);
      }
      if (!accumulator.finished) throw new ModelCallError('the Ollama stream ended before its final "done" chunk');
      return accumulator.result();
    },
  };
}
