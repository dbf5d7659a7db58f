/**
 * The one metering proxy every agent CLI's model traffic goes through: on a
 * Unix socket bridged into the agent's sandbox, or (the logged uncontained
 * opt-out) on 127.0.0.1. It forwards to one upstream (the configured model
 * endpoint), redacts known secret values from every request body, swaps
 * credential placeholders for the real credentials, refuses any other host
 * and CONNECT tunnels, and counts what the provider answered
 * (`response-usage.ts`): a refused, failed, unreachable or ≥ 400 request
 * costs 0. `onUsage` sees every change, so the kill at the reservation is
 * decided here for every backend; `cut()` ends every connection at once.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { DECODERS, redactBody, substituteCredentials } from './redact-body.js';
import { createBodyReader, ResponseUsage, sumCounts, totalOf, ZERO_COUNTS, type TokenCounts } from './response-usage.js';

export { redactBody } from './redact-body.js';

export interface ModelProxySettings {
  /** A Unix socket path (bound into the sandbox); absent: listen on 127.0.0.1, port 0. */
  socketPath?: string;
  /** The model endpoint as configured, e.g. https://api.anthropic.com; its host:port is the whole allowlist. */
  upstream: URL;
  /** Redacts one string; applied to every string in a JSON body (or to the whole text otherwise). */
  redact: (text: string) => string;
  /** Placeholder → real value, substituted in request header values and the request URL. */
  credentials?: Readonly<Record<string, string>>;
  /** Bodies above this are refused (413). Default 64 MiB. */
  maxBodyBytes?: number;
  /** Called after every change of the counts (a delta, a usage event). */
  onUsage?: (proxy: ModelProxy) => void;
  /**
   * Called when a request is forwarded after failed ones (≥ 400, or the endpoint unreachable) with no success between:
   * the agent is retrying. `attempts` counts the failures in a row; `failure` says how the last one failed.
   */
  onRetry?: (retry: { attempts: number; failure: string; endpoint: string }) => void;
  /** Called before each POST (a model call) is forwarded, numbered from 1; false refuses it (429, never forwarded). */
  allowCall?: (call: number) => boolean;
}

export interface ModelProxyStats {
  forwarded: number;
  /** Requests whose body had something redacted. */
  redacted: number;
  /** `host:port` (or `CONNECT host:port`) of each refused request. */
  refused: string[];
}

/** The provider's last refusal or failure, naming the endpoint the user configured (never the proxy). */
export interface ProviderError {
  /** HTTP status; 0 when the endpoint could not be reached (then `code` is the connection error's, e.g. ECONNREFUSED); 200 for an error inside a stream. */
  status: number;
  code?: string;
  message: string;
  endpoint: string;
}

export interface ModelProxy {
  /** The base URL to give an uncontained CLI (TCP only): `http://127.0.0.1:<port><upstream path>`. */
  url: string | null;
  stats(): ModelProxyStats;
  /** What the provider answered so far (exact usage; output deltas estimated only for streams still open or cut). */
  counts(): TokenCounts;
  total(): number;
  lastError(): ProviderError | null;
  /** Ends every connection now (after the reservation was reached) and freezes the counts. */
  cut(): void;
  close(): Promise<void>;
}

/** Connection errors that mean nobody answers at that address (not a blip): not worth a retry. */
export const DEAD_ENDPOINT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_TLS_CERT_ALTNAME_INVALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);

/**
 * What the agent CLI reads when the endpoint is dead. The backend's result names the URL and the cause from
 * `lastError()`; this text only has to end the CLI's call. It must match none of the patterns a CLI retries on:
 * opencode (1.18, `SessionRetry.retryable`) retries any error whose message or body matches a status-like number
 * (`429|500|502|503|504|524` anywhere, so a port such as :45029 would do), "econnrefused", "connection refused",
 * "unavailable", "fetch failed" and the like, 5 times over about a minute — so no URL, no port, no cause here.
 * `x-should-retry: false` is the Stainless SDKs' (Anthropic's, OpenAI's) explicit "final".
 */
export const DEAD_ENDPOINT_ANSWER = 'loop-runtime: nothing answers at the configured model endpoint; this call is final.';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'accept-encoding']);

function hostKey(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

function refuse(response: http.ServerResponse, status: number, message: string, headers: http.OutgoingHttpHeaders = {}): void {
  if (response.headersSent) return void response.destroy();
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ type: 'error', error: { type: 'sandbox_proxy_refused', code: 'sandbox_proxy_refused', status, message } }));
}

function readProviderError(status: number, text: string, endpoint: string): ProviderError {
  try {
    const body = JSON.parse(text) as { error?: { message?: string; code?: string | number; type?: string; status?: string } };
    const code = body.error?.code ?? body.error?.status ?? body.error?.type;
    return { status, endpoint, message: body.error?.message ?? text.slice(0, 500), ...(code !== undefined && code !== null ? { code: String(code) } : {}) };
  } catch {
    return { status, endpoint, message: text.slice(0, 500) };
  }
}

/**
 * @example
 * ```ts
 * const proxy = await startModelProxy({ socketPath, upstream: new URL('https://api.anthropic.com'), redact,
 *   onUsage: (p) => { if (p.total() >= maxTokens) stop(); } });
 * ```
 */
export async function startModelProxy(settings: ModelProxySettings): Promise<ModelProxy> {
  const stats: ModelProxyStats = { forwarded: 0, redacted: 0, refused: [] };
  const allowed = hostKey(settings.upstream);
  const endpoint = settings.upstream.href.replace(/\/+$/, '');
  const client = settings.upstream.protocol === 'https:' ? https : http;
  const limit = settings.maxBodyBytes ?? 64 * 1024 * 1024;
  const credentials = Object.entries(settings.credentials ?? {});
  const responses = new Set<ResponseUsage>();
  const sockets = new Set<Socket>();
  const outgoingRequests = new Set<http.ClientRequest>();
  let frozen: TokenCounts | null = null;
  let error: ProviderError | null = null;
  let calls = 0;
  let failedInARow = 0;
  let lastFailure = '';
  const attemptFailed = (failure: string) => {
    failedInARow++;
    lastFailure = failure;
  };

  const counts = (): TokenCounts => frozen ?? [...responses].map((usage) => usage.counts()).reduce(sumCounts, { ...ZERO_COUNTS });
  const proxy: ModelProxy = {
    url: null,
    stats: () => ({ ...stats, refused: [...stats.refused] }),
    counts,
    total: () => totalOf(counts()),
    lastError: () => error,
    cut: () => {
      frozen ??= counts();
      for (const request of outgoingRequests) request.destroy();
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const request of outgoingRequests) request.destroy();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const changed = () => {
    if (!frozen) settings.onUsage?.(proxy);
  };

  const server = http.createServer((incoming, response) => {
    void (async () => {
      const rawUrl = incoming.url ?? '/';
      let path = rawUrl;
      if (!rawUrl.startsWith('/')) {
        let target: URL;
        try {
          target = new URL(rawUrl);
        } catch {
          return refuse(response, 400, `Not a request URL: ${rawUrl.slice(0, 200)}`);
        }
        if (hostKey(target) !== allowed) {
          stats.refused.push(hostKey(target));
          return refuse(response, 403, `The agent's sandbox reaches only the model endpoint (${allowed}), not ${hostKey(target)}.`);
        }
        path = `${target.pathname}${target.search}`;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of incoming as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) return refuse(response, 413, `Request body over ${limit} bytes.`);
        chunks.push(chunk);
      }
      let body: Buffer = Buffer.concat(chunks);
      const encoding = String(incoming.headers['content-encoding'] ?? 'identity').toLowerCase();
      if (encoding !== 'identity') {
        const decode = DECODERS[encoding];
        // A body we cannot read is a body we cannot redact: fail closed.
        if (!decode) return refuse(response, 415, `Content-Encoding ${encoding} cannot be inspected.`);
        body = await decode(body);
      }
      const redacted = redactBody(body, settings.redact);
      if (redacted.changed) stats.redacted++;
      if (frozen) return refuse(response, 429, 'loop-runtime stopped this agent (its token reservation or its turn limit was reached); no further model call is forwarded.');
      if (incoming.method === 'POST' && settings.allowCall && !settings.allowCall(++calls)) {
        response.writeHead(429, { 'content-type': 'application/json' });
        return void response.end(JSON.stringify({ error: { message: 'loop-runtime stopped this model call (turn limit reached).', code: 'loop_runtime_turn_limit' } }));
      }

      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value === undefined || HOP_BY_HOP.has(name) || name === 'content-encoding') continue;
        headers[name] = Array.isArray(value) ? value.map((item) => substituteCredentials(item, credentials)) : substituteCredentials(value, credentials);
      }
      headers['host'] = settings.upstream.host;
      headers['content-length'] = String(redacted.body.length);
      // Identity only: a compressed answer could not be metered.
      headers['accept-encoding'] = 'identity';
      stats.forwarded++;
      if (failedInARow > 0) settings.onRetry?.({ attempts: failedInARow, failure: lastFailure, endpoint });
      const usage = new ResponseUsage();
      const outgoing = client.request(
        { protocol: settings.upstream.protocol, hostname: settings.upstream.hostname, port: settings.upstream.port, method: incoming.method, path: substituteCredentials(path, credentials), headers },
        (upstream) => {
          const status = upstream.statusCode ?? 502;
          const back: http.OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(upstream.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) back[name] = value;
          response.writeHead(status, back);
          if (status < 400) failedInARow = 0;
          else {
            attemptFailed(`HTTP ${status}`);
            // A refusal costs nothing: its body is read for the error, never for usage.
            const errorChunks: Buffer[] = [];
            upstream.on('data', (chunk: Buffer) => errorChunks.push(chunk));
            upstream.on('end', () => (error = readProviderError(status, Buffer.concat(errorChunks).toString('utf8'), endpoint)));
            upstream.pipe(response);
            return;
          }
          responses.add(usage);
          const reader = createBodyReader(usage, () => {
            if (usage.error) error = { status: 200, endpoint, ...usage.error };
            changed();
          });
          upstream.on('data', (chunk: Buffer) => reader.push(chunk));
          upstream.on('end', () => {
            reader.end();
            if (usage.error) error = { status: 200, endpoint, ...usage.error };
          });
          upstream.pipe(response);
        },
      );
      outgoingRequests.add(outgoing);
      outgoing.on('close', () => outgoingRequests.delete(outgoing));
      outgoing.on('error', (cause) => {
        if (!response.headersSent) {
          const causeCode = (cause as NodeJS.ErrnoException).code;
          // The cause alone (e.g. "connect ECONNREFUSED 127.0.0.1:8080"): the backend's message names the endpoint.
          error = { status: 0, endpoint, message: cause.message, ...(causeCode ? { code: causeCode } : {}) };
          attemptFailed(causeCode === 'ECONNREFUSED' ? 'refused (ECONNREFUSED)' : causeCode ?? cause.message);
          // An endpoint that refuses connections or does not resolve will not answer a retry a second later: say so
          // with a status no agent CLI retries (every one retries 5xx for minutes), so the tick fails at once with the
          // reason. A reset or a timeout may be transient: 502, which the CLI retries.
          const dead = DEAD_ENDPOINT_CODES.has((cause as NodeJS.ErrnoException).code ?? '');
          if (dead) refuse(response, 421, DEAD_ENDPOINT_ANSWER, { 'x-should-retry': 'false' });
          else refuse(response, 502, `The model endpoint ${endpoint} could not be reached: ${cause.message}`);
        } else response.destroy();
      });
      response.on('close', () => outgoing.destroy());
      outgoing.end(redacted.body);
    })().catch((failure: unknown) => refuse(response, 500, `Proxy failure: ${String(failure)}`));
  });
  server.on('connect', (request: http.IncomingMessage, socket: Duplex) => {
    // No tunnels: a tunnelled body could not be redacted, whatever the host.
    stats.refused.push(`CONNECT ${request.url ?? '?'}`);
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (settings.socketPath) server.listen(settings.socketPath, () => resolve());
    else server.listen(0, '127.0.0.1', () => resolve());
  });
  if (!settings.socketPath) {
    const basePath = settings.upstream.pathname.replace(/\/+$/, '');
    proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${basePath}`;
  }
  return proxy;
}
