/**
 * The only way out of the agent's sandbox: an HTTP proxy on a Unix socket
 * that forwards to one upstream (the model endpoint), redacts known secret
 * values from every request body, and swaps credential placeholders for the
 * real credentials, so the agent never holds the API key. Anything else —
 * another host in absolute form, CONNECT tunnels — is refused and recorded.
 */
import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

export interface ModelProxySettings {
  /** Where to listen (a Unix socket path the sandbox gets bound in). */
  socketPath: string;
  /** The model endpoint, e.g. https://api.anthropic.com; its host:port is the whole allowlist. */
  upstream: URL;
  /** Redacts one string; applied to every string in a JSON body (or to the whole text otherwise). */
  redact: (text: string) => string;
  /** Placeholder → real value, substituted in request header values only. */
  credentials?: Readonly<Record<string, string>>;
  /** Bodies above this are refused (413). Default 64 MiB. */
  maxBodyBytes?: number;
}

export interface ModelProxyStats {
  forwarded: number;
  /** Requests whose body had something redacted. */
  redacted: number;
  /** `host:port` (or `CONNECT host:port`) of each refused request. */
  refused: string[];
}

export interface ModelProxy {
  stats(): ModelProxyStats;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);
const decoders: Record<string, (buffer: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

function hostKey(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

/** Redacts every string in a JSON value; returns whether anything changed. */
function redactJson(value: unknown, redact: (text: string) => string): { value: unknown; changed: boolean } {
  if (typeof value === 'string') {
    const redacted = redact(value);
    return { value: redacted, changed: redacted !== value };
  }
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const result = redactJson(item, redact);
      changed ||= result.changed;
      return result.value;
    });
    return { value: items, changed };
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const result = redactJson(item, redact);
      changed ||= result.changed;
      return [key, result.value] as const;
    });
    return { value: Object.fromEntries(entries), changed };
  }
  return { value, changed: false };
}

/** The body as forwarded: decoded, redacted when it held a known secret, re-encoded as identity. */
export function redactBody(body: Buffer, redact: (text: string) => string): { body: Buffer; changed: boolean } {
  if (body.length === 0) return { body, changed: false };
  const text = body.toString('utf8');
  try {
    const result = redactJson(JSON.parse(text), redact);
    return result.changed ? { body: Buffer.from(JSON.stringify(result.value)), changed: true } : { body, changed: false };
  } catch {
    const redacted = redact(text);
    return redacted === text ? { body, changed: false } : { body: Buffer.from(redacted), changed: true };
  }
}

function refuse(response: http.ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ type: 'error', error: { type: 'sandbox_proxy_refused', message } }));
}

/**
 * Starts the proxy.
 *
 * @example
 * ```ts
 * const proxy = await startModelProxy({ socketPath, upstream: new URL('https://api.anthropic.com'), redact });
 * ```
 */
export async function startModelProxy(settings: ModelProxySettings): Promise<ModelProxy> {
  const stats: ModelProxyStats = { forwarded: 0, redacted: 0, refused: [] };
  const allowed = hostKey(settings.upstream);
  const client = settings.upstream.protocol === 'https:' ? https : http;
  const limit = settings.maxBodyBytes ?? 64 * 1024 * 1024;
  const credentials = Object.entries(settings.credentials ?? {});

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
        const decode = decoders[encoding];
        // A body we cannot read is a body we cannot redact: fail closed.
        if (!decode) return refuse(response, 415, `Content-Encoding ${encoding} cannot be inspected.`);
        body = await decode(body);
      }
      const redacted = redactBody(body, settings.redact);
      if (redacted.changed) stats.redacted++;

      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value === undefined || HOP_BY_HOP.has(name) || name === 'content-encoding') continue;
        headers[name] = Array.isArray(value)
          ? value.map((item) => substitute(item, credentials))
          : substitute(value, credentials);
      }
      headers['host'] = settings.upstream.host;
      headers['content-length'] = String(redacted.body.length);
      stats.forwarded++;
      const outgoing = client.request(
        { protocol: settings.upstream.protocol, hostname: settings.upstream.hostname, port: settings.upstream.port, method: incoming.method, path, headers },
        (upstream) => {
          const back: http.OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(upstream.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) back[name] = value;
          response.writeHead(upstream.statusCode ?? 502, back);
          upstream.pipe(response);
        },
      );
      outgoing.on('error', (error) => {
        if (!response.headersSent) refuse(response, 502, `The model endpoint ${allowed} could not be reached: ${error.message}`);
        else response.destroy();
      });
      response.on('close', () => outgoing.destroy());
      outgoing.end(redacted.body);
    })().catch((error: unknown) => {
      if (!response.headersSent) refuse(response, 500, `Proxy failure: ${String(error)}`);
      else response.destroy();
    });
  });
  server.on('connect', (request: http.IncomingMessage, socket: import('node:stream').Duplex) => {
    // No tunnels: a tunnelled body could not be redacted, whatever the host.
    stats.refused.push(`CONNECT ${request.url ?? '?'}`);
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.socketPath, () => resolve());
  });
  return {
    stats: () => ({ ...stats, refused: [...stats.refused] }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function substitute(value: string, credentials: ReadonlyArray<readonly [string, string]>): string {
  let result = value;
  for (const [placeholder, real] of credentials) result = result.split(placeholder).join(real);
  return result;
}
