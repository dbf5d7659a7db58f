/**
 * The agent's only way out: the model proxy on a Unix socket, against a real
 * loopback upstream. Each refusal is paired with its allowed twin.
 */
import http from 'node:http';
import net from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelProxy, type ModelProxy } from '../src/adapters/agent-sandbox/model-proxy.js';
import { scrubNewSecrets } from '../src/adapters/agent-sandbox/scrub-worktree.js';
import { isSecretFileName, secretValuesInFile } from '../src/adapters/agent-sandbox/secret-files.js';
import { createRedactor } from '../src/core/security/redact-secrets.js';
import { sendJson, startHttpFake, type FakeServer } from './fakes/http-fake.js';
import { tempWorkspace } from './fakes/agent-request.js';

const SECRET = 'canary-value-0123456789';
let dir: string;
let upstream: FakeServer;
let proxy: ModelProxy;
let socketPath: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'loop-proxy-'));
  socketPath = path.join(dir, 'model.sock');
  upstream = await startHttpFake((_request, response) => void response.end('{"ok":true}'));
  proxy = await startModelProxy({ socketPath, upstream: new URL(upstream.url), redact: createRedactor([SECRET]), credentials: { 'placeholder-key': 'real-key-123' } });
});

afterAll(async () => {
  await proxy.close();
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

function send(options: { path: string; body?: Buffer | string; headers?: Record<string, string>; method?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath, method: options.method ?? 'POST', path: options.path, headers: options.headers ?? {} }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('model proxy', () => {
  it('forwards to the model endpoint with secrets redacted from the body and the placeholder swapped for the key', async () => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: `the file says ${SECRET} "quoted"` }] });
    const answer = await send({ path: '/v1/messages?beta=true', body, headers: { 'content-type': 'application/json', 'x-api-key': 'placeholder-key' } });
    expect(answer).toEqual({ status: 200, body: '{"ok":true}' });
    const received = upstream.requests.at(-1)!;
    expect(received.url).toBe('/v1/messages?beta=true');
    expect(received.headers['x-api-key']).toBe('real-key-123');
    expect(received.body).toEqual({ messages: [{ role: 'user', content: 'the file says [REDACTED] "quoted"' }] });
    // A compressed body is inspected too, never passed through unread.
    await send({ path: '/v1/messages', body: gzipSync(body), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(JSON.stringify(upstream.requests.at(-1)!.body)).not.toContain(SECRET);
    await expect(send({ path: '/v1/messages', body: 'x', headers: { 'content-encoding': 'zstd' } })).resolves.toMatchObject({ status: 415 });
    expect(proxy.stats().redacted).toBe(2);
  });

  it('refuses other hosts and CONNECT tunnels, while the model host in absolute form is allowed', async () => {
    const before = upstream.requests.length;
    const other = await send({ path: 'http://example.com/steal', body: SECRET });
    expect(other.status).toBe(403);
    const allowed = await send({ path: `${upstream.url}/v1/messages`, body: '{}' });
    expect(allowed.status).toBe(200);
    const tunnel = await new Promise<string>((resolve) => {
      const socket = net.connect(socketPath, () => socket.write(`CONNECT ${new URL(upstream.url).host} HTTP/1.1\r\nhost: x\r\n\r\n`));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(tunnel).toMatch(/^HTTP\/1\.1 403/);
    expect(upstream.requests.length).toBe(before + 1);
    expect(proxy.stats().refused).toEqual(['example.com:80', `CONNECT ${new URL(upstream.url).host}`]);
  });
});

describe('model proxy metering', () => {
  async function tcpProxy(handle: Parameters<typeof startHttpFake>[0], onUsage?: (proxy: ModelProxy) => void) {
    const upstreamServer = await startHttpFake(handle);
    const metered = await startModelProxy({ upstream: new URL(`${upstreamServer.url}/v1`), redact: (text) => text, ...(onUsage ? { onUsage } : {}) });
    return { upstreamServer, metered, close: async () => { await metered.close(); await upstreamServer.close(); } };
  }

  it('counts what the provider answered, and nothing for a refusal (≥ 400)', async () => {
    let status = 200;
    const { metered, close } = await tcpProxy((_request, response) => {
      if (status >= 400) return void sendJson(response, status, { error: { message: 'Incorrect API key', code: 'invalid_api_key' } });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end('data: {"type":"response.output_text.delta","delta":"hello"}\n\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":1000,"output_tokens":50}}}\n\n');
    });
    try {
      expect(metered.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const ok = await fetch(`${metered.url}/responses`, { method: 'POST', body: JSON.stringify({ input: 'x'.repeat(40_000) }) });
      await ok.text();
      expect(metered.counts()).toEqual({ inputTokens: 1000, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 });
      status = 401;
      const refused = await fetch(`${metered.url}/responses`, { method: 'POST', body: JSON.stringify({ input: 'x'.repeat(40_000) }) });
      expect(refused.status).toBe(401);
      await refused.text();
      // The big request body is not billed: only the first, answered call counts.
      expect(metered.total()).toBe(1050);
      expect(metered.lastError()).toMatchObject({ status: 401, code: 'invalid_api_key', message: 'Incorrect API key' });
    } finally {
      await close();
    }
  });

  it('costs 0 and names the configured endpoint when it cannot be reached', async () => {
    const { upstreamServer, metered, close } = await tcpProxy((_request, response) => void response.end('{}'));
    await upstreamServer.close();
    try {
      const answer = await fetch(`${metered.url}/responses`, { method: 'POST', body: '{"input":"hello"}' });
      // Refused connection: a status no agent CLI retries (they retry 5xx for minutes), with the reason in the body.
      expect(answer.status).toBe(421);
      expect(answer.headers.get('x-should-retry')).toBe('false');
      const body = await answer.text();
      expect(body).toContain('nothing answers at the configured model endpoint');
      // opencode 1.18's retry rule (SessionRetry.retryable): a body matching any of these is retried 5 times over a
      // minute. The port of the dead URL (any digits) and the cause must not appear.
      const OPENCODE_RETRYABLE = [/429|500|502|503|504|524/i, /rate limit|too many requests/i, /overloaded|unavailable|internal error|server error/i,
        /terminated|fetch failed|network[-_\s]error|upstream connect|connection error|connection refused|socket hang up|getaddrinfo|enotfound|econnrefused|econnreset|etimedout/i,
        /try your request again|retry your request|resource exhausted/i, /\btry again (?:later|in\b)/i];
      for (const pattern of OPENCODE_RETRYABLE) expect(body).not.toMatch(pattern);
      expect(body).not.toContain(new URL(upstreamServer.url).port);
      expect(metered.total()).toBe(0);
      // The cause and its code, so the backend can say "could not reach <url> (<cause>)" and not retry a refused address.
      expect(metered.lastError()).toMatchObject({ status: 0, endpoint: `${upstreamServer.url}/v1`, code: 'ECONNREFUSED', message: `connect ECONNREFUSED ${new URL(upstreamServer.url).host}` });
    } finally {
      await close();
    }
  });

  it('tells onRetry when a request follows failed ones (the agent retrying), counting failures in a row; a success resets it', async () => {
    const statuses = [503, 503, 200, 429, 200];
    const upstreamServer = await startHttpFake((_request, response) => {
      const status = statuses.shift() ?? 200;
      if (status >= 400) return void sendJson(response, status, { error: { message: 'busy' } });
      sendJson(response, 200, { usage: { input_tokens: 1, output_tokens: 1 } });
    });
    const retries: Array<{ attempts: number; failure: string; endpoint: string }> = [];
    const metered = await startModelProxy({ upstream: new URL(`${upstreamServer.url}/v1`), redact: (text) => text, onRetry: (retry) => retries.push(retry) });
    try {
      for (let call = 0; call < 5; call++) await (await fetch(`${metered.url}/responses`, { method: 'POST', body: '{}' })).text();
      // The twin: the first attempt, and the one after a success, are no retry.
      expect(retries).toEqual([
        { attempts: 1, failure: 'HTTP 503', endpoint: `${upstreamServer.url}/v1` },
        { attempts: 2, failure: 'HTTP 503', endpoint: `${upstreamServer.url}/v1` },
        { attempts: 1, failure: 'HTTP 429', endpoint: `${upstreamServer.url}/v1` },
      ]);
    } finally {
      await metered.close();
      await upstreamServer.close();
    }
    // A dead endpoint: the second request is the first retry, of a refused connection.
    const dead = await startHttpFake((_request, response) => void response.end());
    await dead.close();
    const refused: Array<{ attempts: number; failure: string }> = [];
    const deadProxy = await startModelProxy({ upstream: new URL(dead.url), redact: (text) => text, onRetry: (retry) => refused.push(retry) });
    try {
      // node:http, not fetch: fetch itself retries a 421 once on a new connection (the Fetch standard), which the
      // proxy would rightly count as a retry.
      const post = () => new Promise<void>((resolve, reject) => {
        const request = http.request(`${deadProxy.url}/responses`, { method: 'POST' }, (response) => response.resume().on('end', resolve));
        request.on('error', reject);
        request.end('{}');
      });
      for (let call = 0; call < 2; call++) await post();
      expect(refused).toEqual([{ attempts: 1, failure: 'refused (ECONNREFUSED)', endpoint: dead.url.replace(/\/+$/, '') }]);
    } finally {
      await deadProxy.close();
    }
  });

  it('calls onUsage as a stream grows, so the kill can land mid-stream, and cut() ends it', async () => {
    let crossed = false;
    const { metered, close } = await tcpProxy(
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const next = () => {
          if (response.destroyed) return;
          response.write(`data: ${JSON.stringify({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'x'.repeat(400) } })}\n\n`);
          setTimeout(next, 1);
        };
        next();
      },
      (proxy) => {
        if (!crossed && proxy.total() >= 1_000) {
          crossed = true;
          proxy.cut();
        }
      },
    );
    try {
      const answer = await fetch(`${metered.url}/messages`, { method: 'POST', body: '{}' });
      await answer.text().catch(() => '');
      expect(crossed).toBe(true);
      expect(metered.total()).toBeGreaterThanOrEqual(1_000);
      expect(metered.total()).toBeLessThan(1_200);
    } finally {
      await close();
    }
  });
});

describe('secret files', () => {
  it('knows secret file names and reads their values', () => {
    for (const name of ['.env', '.env.production', 'id_rsa', 'server.pem', 'aws_secret.txt']) expect(isSecretFileName(name), name).toBe(true);
    for (const name of ['env.ts', 'README.md', 'package.json']) expect(isSecretFileName(name), name).toBe(false);
    expect(secretValuesInFile('# c\nexport API_TOKEN="abcdefgh123"\nDEBUG=true\nSHORT=1\nNAME: value-long-enough # note\n')).toEqual(['abcdefgh123', 'value-long-enough']);
  });

  it('scrubs a secret the agent added to a worktree file, but leaves one the base already had', async () => {
    const repo = await tempWorkspace({ 'fixture.txt': `known ${SECRET}\n` }, { git: true });
    try {
      await writeFile(path.join(repo, 'new.yml'), `token: ${SECRET}\n`);
      await writeFile(path.join(repo, 'fixture.txt'), `known ${SECRET}\nmore\n`);
      expect(await scrubNewSecrets(repo, [SECRET])).toEqual({ scrubbed: ['new.yml'] });
      const shown = await execa('cat', ['new.yml', 'fixture.txt'], { cwd: repo });
      expect(shown.stdout).toBe(`token: [REDACTED]\nknown ${SECRET}\nmore`);
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });
});
