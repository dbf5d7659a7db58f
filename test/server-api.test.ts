/**
 * The console's API over a real scaffolded repository on loopback: the
 * guard (token, origin, host, read-only), confinement of request paths, the
 * token file, and the canary secret in every response and on the SSE stream.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { appendFile, readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/adapters/clock/system-clock.js';
import { startServer, type RunningServer } from '../src/server/serve.js';
import { loadAssets } from '../src/server/assets.js';
import { redactorFor } from '../src/composition/wiring.js';
import { CANARY, CANARY_ENV, packageRoot, scaffoldRepository } from './server-fixtures.js';

let repo: string;
let server: RunningServer;

function raw(path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const origin = () => `http://127.0.0.1:${server.port}`;
const withToken = () => ({ 'x-loop-runtime-token': server.token });

beforeAll(async () => {
  repo = await scaffoldRepository();
  // Planted where the console reads: a foreign run-log line and a journal line quoting the secret.
  await appendFile(join(repo, 'loop-run-log.md'), `\n${JSON.stringify({ run_id: '2026-11-20T08:00:00Z', pattern: 'daily-triage', outcome: 'no-op', tokens_estimate: 0, kind: `leaked ${CANARY}` })}\n`);
  server = await startServer({ repos: [repo], env: { ...process.env, ...CANARY_ENV }, clock: systemClock, port: 0 });
});

afterAll(async () => {
  await server?.close();
});

describe('serve: who may change what', () => {
  it('stores the token with mode 0600 and reuses it on the next start', async () => {
    expect(server.tokenCreated).toBe(true);
    const info = await stat(server.tokenFile);
    expect(info.mode & 0o777).toBe(0o600);
    expect((await readFile(server.tokenFile, 'utf8')).trim()).toBe(server.token);
    const second = await startServer({ repos: [repo], env: {}, clock: systemClock, port: 0, readOnly: true });
    try {
      expect(second.tokenCreated).toBe(false);
      expect(second.token).toBe(server.token);
      // --read-only refuses a change even with the token and the right origin.
      const refused = await fetch(`${second.url}api/pause`, { method: 'POST', headers: { 'x-loop-runtime-token': second.token, origin: `http://127.0.0.1:${second.port}` } });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { reason: string } }).error.reason).toBe('read-only');
    } finally {
      await second.close();
    }
    expect(existsSync(join(repo, 'loop-pause-all'))).toBe(false);
  });

  it('refuses a change without the token or with a wrong one (401), or from another origin (403), and accepts the same origin with it', async () => {
    const attempts: Array<{ headers: Record<string, string>; status: number }> = [
      { headers: {}, status: 401 },
      { headers: { 'x-loop-runtime-token': 'wrong-token-wrong-token-wrong' }, status: 401 },
      { headers: { 'x-loop-runtime-token': server.token, origin: 'http://evil.example' }, status: 403 },
      { headers: { 'x-loop-runtime-token': server.token, origin: origin(), 'sec-fetch-site': 'cross-site' }, status: 403 },
    ];
    for (const attempt of attempts) {
      const response = await raw('/api/pause', { method: 'POST', headers: { 'content-type': 'application/json', ...attempt.headers }, body: '{}' });
      expect(response.status, JSON.stringify(attempt)).toBe(attempt.status);
      expect(existsSync(join(repo, 'loop-pause-all'))).toBe(false);
    }
    const allowed = await raw('/api/pause', { method: 'POST', headers: { 'x-loop-runtime-token': server.token, origin: origin(), 'sec-fetch-site': 'same-origin' }, body: '{}' });
    expect(allowed.status).toBe(200);
    expect(existsSync(join(repo, 'loop-pause-all'))).toBe(true);
    const loops = JSON.parse((await raw('/api/loops', { headers: withToken() })).body) as { loops: Array<{ paused: boolean; pausedBy: Array<{ source: string }> }> };
    expect(loops.loops[0]).toMatchObject({ paused: true, pausedBy: [{ source: 'file loop-pause-all' }] });
    const resumed = await raw('/api/resume', { method: 'POST', headers: { 'x-loop-runtime-token': server.token }, body: '{}' });
    expect(resumed.status).toBe(200);
    expect(existsSync(join(repo, 'loop-pause-all'))).toBe(false);
  });

  it('answers only to its own host names (no DNS rebinding): another Host gets 421 even with the token', async () => {
    const evil = await raw('/api/health', { headers: { ...withToken(), host: `evil.example:${server.port}` } });
    expect(evil.status).toBe(421);
    expect(JSON.parse(evil.body).error.message).toContain('To fix: ');
    expect((await raw('/', { headers: { host: `evil.example:${server.port}` } })).status).toBe(421);
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`]) expect((await raw('/api/health', { headers: { ...withToken(), host } })).status, host).toBe(200);
  });

  // Run logs, diffs and spend are no business of another local user: every read needs the token, as changes do.
  it.each(['/api/health', '/api/loops', '/api/inbox', '/api/inbox/no-such-change/diff', '/api/spend', '/api/runs', '/api/events'])('refuses the read %s without the token (401) or with a wrong one', async (path) => {
    for (const headers of [{}, { 'x-loop-runtime-token': 'wrong-token-wrong-token-wrong' }, { 'x-loop-runtime-token': '' }] as Array<Record<string, string>>) {
      const refused = await raw(path, { headers });
      expect(refused.status, JSON.stringify(headers)).toBe(401);
      expect(JSON.parse(refused.body).error.reason).toBe('token');
    }
    expect((await raw(`${path}?ticket=made-up-ticket`)).status).toBe(401);
  });

  it.each(['/api/health', '/api/loops', '/api/inbox', '/api/spend', '/api/runs'])('answers the read %s with the token (200)', async (path) => {
    expect((await raw(path, { headers: withToken() })).status).toBe(200);
  });

  it('serves the page files without the token (static, no data), and the diff of an unknown change with it is 404, not 401', async () => {
    expect((await raw('/')).status).toBe(200);
    expect((await raw('/assets/app.js')).status).toBe(200);
    expect((await raw('/api/inbox/no-such-change/diff', { headers: withToken() })).status).toBe(404);
  });

  it('opens the event stream with a single-use ticket, never with the token in the address', async () => {
    const ticketResponse = await raw('/api/events/ticket', { headers: withToken() });
    expect(ticketResponse.status).toBe(200);
    const { ticket } = JSON.parse(ticketResponse.body) as { ticket: string };
    expect(ticket).not.toContain(server.token);
    expect((await raw('/api/events/ticket')).status).toBe(401);
    const controller = new AbortController();
    const opened = await fetch(`${server.url}api/events?ticket=${encodeURIComponent(ticket)}`, { signal: controller.signal });
    expect(opened.status).toBe(200);
    controller.abort();
    // Used once: the same ticket again is refused, as is the token itself in the query.
    expect((await raw(`/api/events?ticket=${encodeURIComponent(ticket)}`)).status).toBe(401);
    expect((await raw(`/api/events?ticket=${encodeURIComponent(server.token)}`)).status).toBe(401);
  });

  it('with --expose, answers the bound address and the --allowed-host names, and refuses any other Host', async () => {
    const exposed = await startServer({ repos: [repo], env: {}, clock: systemClock, port: 0, host: '127.0.0.2', expose: true, readOnly: true, allowedHosts: ['ops.example.internal'] });
    try {
      const ask = (host: string, headers: Record<string, string> = { 'x-loop-runtime-token': exposed.token }) =>
        new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.2', port: exposed.port, path: '/api/loops', headers: { ...headers, host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      for (const host of [`127.0.0.2:${exposed.port}`, `ops.example.internal:${exposed.port}`, 'ops.example.internal', `localhost:${exposed.port}`]) expect(await ask(host), host).toBe(200);
      for (const host of [`evil.example:${exposed.port}`, `ops.example.internal.evil.example:${exposed.port}`, `0.0.0.0:${exposed.port}`]) expect(await ask(host), host).toBe(421);
      expect(await ask(`ops.example.internal:${exposed.port}`, {})).toBe(401);
      expect(exposed.allowedHosts).toContain('ops.example.internal');
    } finally {
      await exposed.close();
    }
  });

  it('never serves a path from a request: traversal gets 404, ids are looked up, not joined', async () => {
    for (const path of ['/assets/../../package.json', '/assets/..%2f..%2fpackage.json', '/assets/%2e%2e/%2e%2e/package.json', '/../../../etc/passwd']) {
      const response = await raw(path);
      expect(response.body).not.toContain('"name": "loop-runtime"');
      expect(response.body).not.toContain('root:x:0');
      expect([404, 200]).toContain(response.status);
      if (response.status === 200) expect(response.body).toContain('<title>loop-runtime console</title>');
    }
    const diff = await raw('/api/inbox/..%2F..%2F..%2Fetc%2Fpasswd/diff', { headers: withToken() });
    expect(diff.status).toBe(404);
    expect(diff.body).not.toContain('root:x:0');
    const pause = await raw('/api/pause', { method: 'POST', headers: { 'x-loop-runtime-token': server.token }, body: JSON.stringify({ loop: '../../etc' }) });
    expect(pause.status).toBe(404);
    expect(existsSync(join(repo, '.loop-runtime', 'paused'))).toBe(false);
  });

  it('refuses to bind beyond loopback without --expose', async () => {
    await expect(startServer({ repos: [repo], env: {}, clock: systemClock, port: 0, host: '0.0.0.0' })).rejects.toThrow(/--expose/);
  });
});

describe('serve: several repositories', () => {
  it('lists the loops of each, addresses them by id, and pauses only the one named', async () => {
    const other = await scaffoldRepository(['noop']);
    const both = await startServer({ repos: [repo, other], env: {}, clock: systemClock, port: 0 });
    try {
      const read = { headers: { 'x-loop-runtime-token': both.token } };
      const loops = (await (await fetch(`${both.url}api/loops`, read)).json()) as { repos: Array<{ id: string }>; loops: Array<{ repo: string; id: string }> };
      expect(loops.repos.map((entry) => entry.id)).toEqual(['0', '1']);
      expect(loops.loops.map((loop) => `${loop.repo}:${loop.id}`)).toEqual(['0:daily-triage', '1:daily-triage']);
      const headers = { 'x-loop-runtime-token': both.token, 'content-type': 'application/json' };
      const paused = await fetch(`${both.url}api/pause`, { method: 'POST', headers, body: JSON.stringify({ repo: '1', loop: 'daily-triage' }) });
      expect(paused.status).toBe(200);
      expect(existsSync(join(other, '.loop-runtime', 'paused', 'daily-triage'))).toBe(true);
      expect(existsSync(join(repo, '.loop-runtime', 'paused', 'daily-triage'))).toBe(false);
      const after = (await (await fetch(`${both.url}api/loops`, read)).json()) as { loops: Array<{ repo: string; paused: boolean }> };
      expect(after.loops.map((loop) => loop.paused)).toEqual([false, true]);
      expect((await fetch(`${both.url}api/runs/x?repo=7`, read)).status).toBe(404);
      await fetch(`${both.url}api/resume`, { method: 'POST', headers, body: JSON.stringify({ repo: '1', loop: 'daily-triage' }) });
      expect(existsSync(join(other, '.loop-runtime', 'paused', 'daily-triage'))).toBe(false);
    } finally {
      await both.close();
    }
  });
});

describe('serve: no secret in any response', () => {
  it('ships page files the redactor leaves intact (else redaction would break the page)', async () => {
    const redact = redactorFor({}, null);
    for (const [url, asset] of await loadAssets()) expect(redact(asset.body) === asset.body, url).toBe(true);
  });

  it('redacts the canary in every page file and API response', async () => {
    const paths = ['/', '/assets/app.js', '/assets/render.js', '/assets/style.css', '/assets/uplot.js', '/api/health', '/api/loops', '/api/runs', '/api/inbox', '/api/spend'];
    for (const path of paths) {
      const response = await raw(path, { headers: withToken() });
      expect(response.status, path).toBe(200);
      expect(response.body, path).not.toContain(CANARY);
    }
    // Not vacuous: the planted line is served, redacted.
    expect((await raw('/api/runs', { headers: withToken() })).body).toContain('leaked [REDACTED]');
  });

  it('redacts the canary on the SSE stream, for a line another process appended', async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.url}api/events`, { signal: controller.signal, headers: withToken() });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (needle: string) => {
      while (!text.includes(needle)) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`stream ended before "${needle}"`);
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
    await until('event: hello');
    const line = { v: 1, type: 'phase-end', loop: 'daily-triage', pid: 1, tickId: 'tick-canary-1', phase: 'triage', at: 1, tokens: 5, note: `found ${CANARY}` };
    await appendFile(join(repo, '.loop-runtime', 'events.jsonl'), `${JSON.stringify(line)}\n`);
    await until('tick-canary-1');
    await until('\n\n');
    controller.abort();
    expect(text).toContain('found [REDACTED]');
    expect(text).not.toContain(CANARY);
  });
});

describe('loop-runtime serve (the CLI)', () => {
  it('prints the address and the token once, and stops on SIGTERM', async () => {
    const fresh = await scaffoldRepository(['noop']);
    const start = async (): Promise<string> => {
      const child = spawn(process.execPath, [join(packageRoot, 'bin', 'loop-runtime.js'), 'serve', '--port', '0', '--cwd', fresh], { env: { ...process.env, NO_COLOR: '1' } });
      let out = '';
      child.stdout.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          if (/Token/.test(out)) resolve();
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      return out;
    };
    const first = await start();
    const token = (await readFile(join(fresh, '.loop-runtime', 'serve-token'), 'utf8')).trim();
    expect(first).toMatch(/loop-runtime console: http:\/\/127\.0\.0\.1:\d+\//);
    expect(first).toContain(`#token=${token}`);
    // The start says what the token opens: reads too, not only approvals.
    expect(first).toContain('Every API request needs the token; with it: read loops, run history and run logs, diffs of kept changes');
    expect(first).toMatch(/Answers to Host: 127\.0\.0\.1:\d+, localhost:\d+/);
    const second = await start();
    expect(second).not.toContain(token);
    expect(second).toContain('Token: in ');
  });
});
