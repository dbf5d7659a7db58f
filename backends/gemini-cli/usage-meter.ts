/**
 * A metering pass-through for the Gemini API on 127.0.0.1. The CLI reports
 * tokens only in its final `result` event, so the backend points
 * GOOGLE_GEMINI_BASE_URL here and this forwards every request to the real
 * endpoint unchanged, reading `usageMetadata` from each response chunk as it
 * streams by. That gives the running total the kill needs, mid-stream, from
 * the provider's own numbers. Nothing is stored; the key header passes through.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Usage } from '../../src/core/ports/index.js';

type Counts = Omit<Usage, 'costUsd'>;

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/** Gemini `usageMetadata` (promptTokenCount includes cached tokens; thoughts are billed as output). */
export function fromGeminiUsage(raw: unknown): Counts {
  const usage = (raw ?? {}) as { promptTokenCount?: number; candidatesTokenCount?: number; cachedContentTokenCount?: number; thoughtsTokenCount?: number; toolUsePromptTokenCount?: number };
  const cached = count(usage.cachedContentTokenCount);
  return {
    inputTokens: Math.max(0, count(usage.promptTokenCount) + count(usage.toolUsePromptTokenCount) - cached),
    outputTokens: count(usage.candidatesTokenCount) + count(usage.thoughtsTokenCount),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/** The last usageMetadata in a chunk of SSE or JSON text, if any. */
export function lastUsageIn(text: string): Counts | null {
  let found: Counts | null = null;
  for (const line of text.split('\n')) {
    const json = line.startsWith('data:') ? line.slice(5).trim() : line.trim();
    if (!json.startsWith('{') || !json.includes('usageMetadata')) continue;
    try {
      const parsed = JSON.parse(json) as { usageMetadata?: unknown };
      if (parsed.usageMetadata) found = fromGeminiUsage(parsed.usageMetadata);
    } catch {
      // a partial line: the rest arrives in the next chunk
    }
  }
  return found;
}

export interface UsageMeter {
  url: string;
  /** Tokens of every response so far; each response counts its latest usageMetadata once. */
  counts(): Counts;
  /** Cuts every upstream stream now (the provider stops generating) and freezes the counts. */
  cut(): void;
  close(): Promise<void>;
}

const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'accept-encoding']);

/**
 * @example
 * ```ts
 * const meter = await startUsageMeter('https://generativelanguage.googleapis.com', () => check(meter.counts()));
 * env.GOOGLE_GEMINI_BASE_URL = meter.url;
 * ```
 */
export async function startUsageMeter(upstream: string, onUsage: () => void): Promise<UsageMeter> {
  const perResponse: Counts[] = [];
  const upstreamCalls = new AbortController();
  let frozen = false;
  const sockets = new Set<import('node:net').Socket>();
  const base = upstream.replace(/\/+$/, '');
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers)) if (!HOP_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
        const slot = perResponse.push({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }) - 1;
        try {
          const body = chunks.length ? Buffer.concat(chunks) : undefined;
          const upstreamResponse = await fetch(`${base}${request.url ?? '/'}`, {
            method: request.method ?? 'GET', headers, signal: upstreamCalls.signal, ...(body ? { body } : {}),
          });
          const out: Record<string, string> = {};
          upstreamResponse.headers.forEach((value, name) => {
            if (name !== 'content-encoding' && name !== 'content-length' && name !== 'transfer-encoding') out[name] = value;
          });
          response.writeHead(upstreamResponse.status, out);
          const decoder = new TextDecoder();
          let pending = '';
          for await (const piece of upstreamResponse.body ?? []) {
            response.write(piece);
            pending += decoder.decode(piece as Uint8Array, { stream: true });
            const cut = pending.lastIndexOf('\n');
            const complete = cut >= 0 ? pending.slice(0, cut) : '';
            pending = cut >= 0 ? pending.slice(cut + 1) : pending;
            const usage = complete ? lastUsageIn(complete) : null;
            if (usage && !frozen) {
              perResponse[slot] = usage;
              onUsage();
            }
          }
          const rest = lastUsageIn(pending);
          if (rest && !frozen) {
            perResponse[slot] = rest;
            onUsage();
          }
          response.end();
        } catch (error) {
          if (!response.headersSent) response.writeHead(502, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { code: 502, status: 'UNAVAILABLE', message: `loop-runtime usage meter: ${error instanceof Error ? error.message : String(error)}` } }));
        }
      })();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts() {
      const sum: Counts = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
      for (const counts of perResponse) {
        sum.inputTokens += counts.inputTokens;
        sum.outputTokens += counts.outputTokens;
        sum.cacheReadTokens += counts.cacheReadTokens;
        sum.cacheWriteTokens += counts.cacheWriteTokens;
      }
      return sum;
    },
    cut() {
      frozen = true;
      upstreamCalls.abort();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
