/**
 * A loopback proxy between Codex and its Responses API endpoint that meters
 * every model call as it streams. `codex exec --json` reports usage only once,
 * at `turn.completed`, after every model call of the turn — too late to stop at
 * a reservation. The proxy reads each response's SSE stream: output deltas are
 * estimated (4 characters a token) while they arrive, and replaced by the exact
 * `usage` of `response.completed`. It also sees the HTTP status and error body
 * of refused calls, which Codex itself only summarises.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface MeterCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ProviderError {
  status: number;
  code?: string;
  message: string;
}

export interface ResponsesMeter {
  /** The base URL to give Codex (it posts to `<url>/responses`). */
  url: string;
  /** Model calls started so far. */
  calls(): number;
  /** Completed calls exactly, plus the streaming call's input estimate and output so far. */
  counts(): MeterCounts;
  total(): number;
  /** The last error the provider answered (HTTP status ≥ 400, or a `response.failed` event). */
  lastError(): ProviderError | null;
  /** Cuts every open connection (after the CLI was stopped). */
  cut(): void;
  close(): Promise<void>;
}

export interface ResponsesMeterOptions {
  /** The real endpoint, e.g. https://api.openai.com/v1. */
  upstream: string;
  /** Called after every counted change (a delta or a completed call). */
  onChange?(meter: ResponsesMeter): void;
  /** Called before a call is forwarded; return false to refuse it (answered 429, never forwarded). */
  allowCall?(callNumber: number): boolean;
}

const CHARS_PER_TOKEN = 4;
const ZERO: MeterCounts = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
const DELTA_TYPES = new Set([
  'response.output_text.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
]);

function exactUsage(usage: Record<string, unknown>): MeterCounts {
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);
  const inputDetails = (usage['input_tokens_details'] ?? {}) as Record<string, unknown>;
  const cached = number(inputDetails['cached_tokens']);
  return { inputTokens: Math.max(0, number(usage['input_tokens']) - cached), outputTokens: number(usage['output_tokens']), cacheReadTokens: cached, cacheWriteTokens: 0 };
}

function sum(a: MeterCounts, b: MeterCounts): MeterCounts {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/**
 * @example
 * ```ts
 * const meter = await startResponsesMeter({ upstream: 'https://api.openai.com/v1', onChange: (m) => { if (m.total() >= max) stop(); } });
 * // config.toml: base_url = meter.url
 * ```
 */
export async function startResponsesMeter(options: ResponsesMeterOptions): Promise<ResponsesMeter> {
  const upstream = options.upstream.replace(/\/+$/, '');
  let settled: MeterCounts = { ...ZERO };
  const inFlight = new Map<number, MeterCounts>();
  let callCount = 0;
  let error: ProviderError | null = null;
  const sockets = new Set<Socket>();

  const meter: ResponsesMeter = {
    url: '',
    calls: () => callCount,
    counts: () => [...inFlight.values()].reduce(sum, settled),
    total: () => {
      const counts = meter.counts();
      return counts.inputTokens + counts.outputTokens + counts.cacheReadTokens + counts.cacheWriteTokens;
    },
    lastError: () => error,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        meter.cut();
        server.close(() => resolve());
      }),
  };

  const readError = (status: number, text: string): ProviderError => {
    try {
      const body = JSON.parse(text) as { error?: { message?: string; code?: string; type?: string } };
      const code = body.error?.code ?? body.error?.type;
      return { status, message: body.error?.message ?? text.slice(0, 500), ...(code ? { code } : {}) };
    } catch {
      return { status, message: text.slice(0, 500) };
    }
  };

  const server = http.createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const isModelCall = incoming.method === 'POST' && /\/responses$/.test(incoming.url ?? '');
        const call = isModelCall ? ++callCount : 0;
        if (isModelCall && options.allowCall && !options.allowCall(call)) {
          response.writeHead(429, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { message: 'loop-runtime stopped this model call (turn limit reached).', code: 'loop_runtime_turn_limit' } }));
          return;
        }
        // The request's input is billed even if the stream is cut: count an estimate until the exact figure arrives.
        if (isModelCall) inFlight.set(call, { ...ZERO, inputTokens: Math.ceil(body.length / CHARS_PER_TOKEN) });
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (typeof value === 'string' && !['host', 'content-length', 'connection', 'accept-encoding'].includes(name)) headers[name] = value;
        }
        let upstreamResponse: Response;
        try {
          upstreamResponse = await fetch(`${upstream}${incoming.url ?? ''}`, { method: incoming.method ?? 'GET', headers, ...(body.length ? { body } : {}) });
        } catch (cause) {
          error = { status: 0, message: `could not reach ${upstream}: ${cause instanceof Error ? cause.message : String(cause)}` };
          response.writeHead(502, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { message: error.message } }));
          return;
        }
        const responseHeaders: Record<string, string> = {};
        upstreamResponse.headers.forEach((value, name) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) responseHeaders[name] = value;
        });
        response.writeHead(upstreamResponse.status, responseHeaders);
        if (upstreamResponse.status >= 400) {
          const text = await upstreamResponse.text();
          if (isModelCall) error = readError(upstreamResponse.status, text);
          response.end(text);
          return;
        }
        if (!upstreamResponse.body) {
          response.end();
          return;
        }
        let buffer = '';
        const decoder = new TextDecoder();
        const observe = (line: string) => {
          if (!isModelCall || !line.startsWith('data:')) return;
          let event: { type?: string; delta?: unknown; response?: { usage?: Record<string, unknown>; error?: { code?: string; message?: string } } };
          try {
            event = JSON.parse(line.slice(5).trim()) as typeof event;
          } catch {
            return;
          }
          const current = inFlight.get(call) ?? { ...ZERO };
          if (event.type && DELTA_TYPES.has(event.type) && typeof event.delta === 'string') {
            inFlight.set(call, { ...current, outputTokens: current.outputTokens + event.delta.length / CHARS_PER_TOKEN });
            options.onChange?.(meter);
          } else if (event.type === 'response.completed' || event.type === 'response.incomplete') {
            inFlight.delete(call);
            settled = sum(settled, event.response?.usage ? exactUsage(event.response.usage) : current);
            options.onChange?.(meter);
          } else if (event.type === 'response.failed') {
            const failure = event.response?.error;
            error = { status: 200, message: failure?.message ?? 'response.failed', ...(failure?.code ? { code: failure.code } : {}) };
          }
        };
        for await (const chunk of upstreamResponse.body) {
          if (response.destroyed) break;
          response.write(chunk);
          buffer += decoder.decode(chunk, { stream: true });
          const lines = buffer.split('\n');
          buffer = lines.pop() ?? '';
          for (const line of lines) observe(line);
        }
        response.end();
      })().catch(() => {
        if (!response.headersSent) response.writeHead(502);
        response.end();
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  meter.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return meter;
}
