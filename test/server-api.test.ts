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
import { redactorFor } from '../src/runtime/wiring.js';
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

beforeAll(async () => {
  repo = await scaffoldRepository();
  // Planted where the console reads: a foreign run-log line and a journal line quoting the secret.
  await appendFile(join(repo, 'loop-run-log.md'), `\n${JSON.stringify({ run_id: '2026-11-20T08:00:00Z', pattern: 'daily-triage', outcome: 'no-op', tokens_estimate: 0, kind: `leaked ${CANARY}` })}\n`);
  server = await startServer({ repos: [repo], env: { ...process.env, ...CANARY_ENV }, clock: systemClock, port: 0 });
}, 60_000);

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

  it('refuses a change without the token, with a wrong one, or from another origin (403), and accepts the same origin with it', async () => {
    const attempts: Array<{ headers: Record<string, string> }> = [
      { headers: {} },
      { headers: { 'x-loop-runtime-token': 'wrong-token-wrong-token-wrong' } },
      { headers: { 'x-loop-runtime-token': server.token, origin: 'http://evil.example' } },
      { headers: { 'x-loop-runtime-token': server.token, origin: origin(), 'sec-fetch-site': 'cross-site' } },
    ];
    for (const attempt of attempts) {
      const response = await raw('/api/pause', { method: 'POST', headers: { 'content-type': 'application/json', ...attempt.headers }, body: '{}' });
      expect(response.status, JSON.stringify(attempt)).toBe(403);
      expect(existsSync(join(repo, 'loop-pause-all'))).toBe(false);
    }
    const allowed = await raw('/api/pause', { method: 'POST', headers: { 'x-loop-runtime-token': server.token, origin: origin(), 'sec-fetch-site': 'same-origin' }, body: '{}' });
    expect(allowed.status).toBe(200);
    expect(existsSync(join(repo, 'loop-pause-all'))).toBe(true);
    const loops = JSON.parse((await raw('/api/loops')).body) as { loops: Array<{ paused: boolean; pausedBy: Array<{ source: string }> }> };
    expect(loops.loops[0]).toMatchObject({ paused: true, pausedBy: [{ source: 'file loop-pause-all' }] });
    const resumed = await raw('/api/resume', { method: 'POST', headers: { 'x-loop-runtime-token': server.token }, body: '{}' });
    expect(resumed.status).toBe(200);
    expect(existsSync(join(repo, 'loop-pause-all'))).toBe(false);
  });

  it('answers only to its own host name (no DNS rebinding), and reads need no token', async () => {
    expect((await raw('/api/health', { headers: { host: `evil.example:${server.port}` } })).status).toBe(403);
    expect((await raw('/api/health', { headers: { host: `localhost:${server.port}` } })).status).toBe(200);
  });

  it('never serves a path from a request: traversal gets 404, ids are looked up, not joined', async () => {
    for (const path of ['/assets/../../package.json', '/assets/..%2f..%2fpackage.json', '/assets/%2e%2e/%2e%2e/package.json', '/../../../etc/passwd']) {
      const response = await raw(path);
      expect(response.body).not.toContain('"name": "loop-runtime"');
      expect(response.body).not.toContain('root:x:0');
      expect([404, 200]).toContain(response.status);
      if (response.status === 200) expect(response.body).toContain('<title>loop-runtime console</title>');
    }
    const diff = await raw('/api/inbox/..%2F..%2F..%2Fetc%2Fpasswd/diff');
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
      const loops = (await (await fetch(`${both.url}api/loops`)).json()) as { repos: Array<{ id: string }>; loops: Array<{ repo: string; id: string }> };
      expect(loops.repos.map((entry) => entry.id)).toEqual(['0', '1']);
      expect(loops.loops.map((loop) => `${loop.repo}:${loop.id}`)).toEqual(['0:daily-triage', '1:daily-triage']);
      const headers = { 'x-loop-runtime-token': both.token, 'content-type': 'application/json' };
      const paused = await fetch(`${both.url}api/pause`, { method: 'POST', headers, body: JSON.stringify({ repo: '1', loop: 'daily-triage' }) });
      expect(paused.status).toBe(200);
      expect(existsSync(join(other, '.loop-runtime', 'paused', 'daily-triage'))).toBe(true);
      expect(existsSync(join(repo, '.loop-runtime', 'paused', 'daily-triage'))).toBe(false);
      const after = (await (await fetch(`${both.url}api/loops`)).json()) as { loops: Array<{ repo: string; paused: boolean }> };
      expect(after.loops.map((loop) => loop.paused)).toEqual([false, true]);
      expect((await fetch(`${both.url}api/runs/x?repo=7`)).status).toBe(404);
      await fetch(`${both.url}api/resume`, { method: 'POST', headers, body: JSON.stringify({ repo: '1', loop: 'daily-triage' }) });
      expect(existsSync(join(other, '.loop-runtime', 'paused', 'daily-triage'))).toBe(false);
    } finally {
      await both.close();
    }
  }, 30_000);
});

describe('serve: no secret in any response', () => {
  it('ships page files the redactor leaves intact (else redaction would break the page)', async () => {
    const redact = redactorFor({}, null);
    for (const [url, asset] of await loadAssets()) expect(redact(asset.body) === asset.body, url).toBe(true);
  });

  it('redacts the canary in every page file and API response', async () => {
    const paths = ['/', '/assets/app.js', '/assets/render.js', '/assets/style.css', '/assets/uplot.js', '/api/health', '/api/loops', '/api/runs', '/api/inbox', '/api/spend'];
    for (const path of paths) {
      const response = await raw(path);
      expect(response.status, path).toBe(200);
      expect(response.body, path).not.toContain(CANARY);
    }
    // Not vacuous: the planted line is served, redacted.
    expect((await raw('/api/runs')).body).toContain('leaked [REDACTED]');
  });

  it('redacts the canary on the SSE stream, for a line another process appended', async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.url}api/events`, { signal: controller.signal });
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
    const second = await start();
    expect(second).not.toContain(token);
    expect(second).toContain('Token: in ');
  }, 30_000);
});
