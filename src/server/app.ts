/**
 * The console's HTTP surface on Hono: the page's files, the JSON API and the
 * SSE stream. Every route acts through a repository's `Runtime` (the same
 * calls the CLI makes); every response body passes the runtime's redactor on
 * its way out; every request passes the guard first.
 */
import { homedir } from 'node:os';
import { isAbsolute, relative, sep } from 'node:path';
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { isLoopRuntimeError } from '../core/errors.js';
import type { Redact } from '../composition/wiring.js';
import type { Asset } from './assets.js';
import type { EventHub } from './event-hub.js';
import type { TicketBook } from './event-tickets.js';
import { judgeRequest, type GuardSettings } from './guard.js';
import { pickRepository, type ServedRepository } from './served-repository.js';

export interface AppOptions {
  repos: readonly ServedRepository[];
  assets: ReadonlyMap<string, Asset>;
  hub: EventHub;
  guard: GuardSettings;
  redact: Redact;
  /** Single-use tickets for the SSE stream (the guard redeems them). */
  tickets: TicketBook;
  version: string;
  /** Heartbeat comment interval on SSE streams (keeps proxies from closing idle streams). */
  heartbeatMs?: number;
}

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

export function createApp(options: AppOptions): Hono {
  const { repos, hub, redact } = options;
  const app = new Hono();

  app.use('*', async (c, next) => {
    const verdict = judgeRequest({ method: c.req.method, path: c.req.path, header: (name) => c.req.header(name), query: (name) => c.req.query(name) }, options.guard);
    if (!verdict.ok) return c.json({ ok: false, error: { code: 'FORBIDDEN', reason: verdict.reason, message: verdict.message } }, verdict.status);
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
    // Redaction on every response: whatever a handler returned, no secret value or token shape leaves.
    const type = c.res.headers.get('content-type') ?? '';
    if (type.startsWith('text/event-stream') || !c.res.body) return;
    const text = await c.res.text();
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    c.res = new Response(redact(text), { status: c.res.status, headers });
  });

  for (const [path, asset] of options.assets) {
    app.get(path, (c) => c.body(asset.body, 200, { 'content-type': asset.type }));
  }

  const repoOr404 = (c: Context): ServedRepository | Response => {
    const repo = pickRepository(repos, c.req.query('repo'));
    return repo ?? c.json({ ok: false, error: { code: 'NOT_FOUND', message: `No served repository "${c.req.query('repo')}".` } }, 404);
  };
  const failed = (c: Context, error: unknown) => {
    const code = isLoopRuntimeError(error) ? error.code : 'INTERNAL';
    const status = code === 'USAGE' || code === 'PATTERN_NOT_FOUND' ? 404 : code === 'LEASE_HELD' ? 409 : code === 'WORKSPACE_FAILED' ? 409 : 500;
    const fix = isLoopRuntimeError(error) ? error.fix : undefined;
    return c.json({ ok: false, error: { code, message: error instanceof Error ? error.message : String(error), ...(fix ? { fix } : {}) } }, status);
  };
  const route = (handler: (c: Context) => Promise<Response>) => async (c: Context) => {
    try {
      return await handler(c);
    } catch (error) {
      return failed(c, error);
    }
  };
  const repoList = () => repos.map((repo) => ({ id: repo.id, name: repo.name }));

  app.get('/api/health', (c) => c.json({ ok: true, version: options.version, readOnly: options.guard.readOnly, repos: repoList(), subscribers: hub.subscribers }));

  app.get(
    '/api/loops',
    route(async (c) => {
      const perRepo = await Promise.all(repos.map(async (repo) => (await repo.runtime.loops()).map((loop) => ({ repo: repo.id, ...loop }))));
      return c.json({ repos: repoList(), loops: perRepo.flat() });
    }),
  );

  app.get(
    '/api/runs',
    route(async (c) => {
      const query = c.req.query();
      const filter = {
        ...(query.loop ? { loop: query.loop } : {}),
        ...(query.outcome ? { outcome: query.outcome } : {}),
        ...(query.from ? { from: query.from } : {}),
        ...(query.to ? { to: query.to } : {}),
        ...(query.limit ? { limit: Number(query.limit) || 200 } : {}),
      };
      const selected = query.repo ? repos.filter((repo) => repo.id === query.repo) : repos;
      const runs = (await Promise.all(selected.map(async (repo) => (await repo.runtime.history(filter)).map((run) => ({ repo: repo.id, ...run }))))).flat();
      runs.sort((a, b) => b.run_id.localeCompare(a.run_id));
      return c.json({ runs });
    }),
  );

  app.get(
    '/api/runs/:tickId',
    route(async (c) => {
      const repo = repoOr404(c);
      if (repo instanceof Response) return repo;
      return c.json({ repo: repo.id, ...(await repo.runtime.tick(c.req.param('tickId') ?? '')) });
    }),
  );

  app.get(
    '/api/inbox',
    route(async (c) => {
      const items = await Promise.all(
        repos.map(async (repo) => (await repo.runtime.inbox()).map(({ path, ...item }) => ({ repo: repo.id, ...item, review: reviewPath(path, repo.runtime.project.root) }))),
      );
      return c.json({ items: items.flat() });
    }),
  );

  app.get(
    '/api/inbox/:id/diff',
    route(async (c) => {
      const repo = repoOr404(c);
      if (repo instanceof Response) return repo;
      return c.json({ repo: repo.id, ...(await repo.runtime.diff(c.req.param('id') ?? '')) });
    }),
  );

  app.get(
    '/api/spend',
    route(async (c) => {
      const days = Number(c.req.query('days') ?? 30) || 30;
      const reports = await Promise.all(repos.map(async (repo) => ({ repo: repo.id, ...(await repo.runtime.spend(days)) })));
      return c.json({ repos: reports });
    }),
  );

  app.post(
    '/api/inbox/:id/approve',
    route(async (c) => {
      const repo = repoOr404(c);
      if (repo instanceof Response) return repo;
      const body = await readBody(c);
      const result = await repo.runtime.approve(c.req.param('id') ?? '', { yes: body.yes === true });
      return c.json({ ok: true, repo: repo.id, result });
    }),
  );

  app.post(
    '/api/inbox/:id/deliver',
    route(async (c) => {
      const repo = repoOr404(c);
      if (repo instanceof Response) return repo;
      return c.json({ ok: true, repo: repo.id, result: await repo.runtime.deliver(c.req.param('id') ?? '') });
    }),
  );

  app.post(
    '/api/inbox/:id/reject',
    route(async (c) => {
      const repo = repoOr404(c);
      if (repo instanceof Response) return repo;
      return c.json({ ok: true, repo: repo.id, result: await repo.runtime.reject(c.req.param('id') ?? '') });
    }),
  );

  for (const action of ['pause', 'resume'] as const) {
    app.post(
      `/api/${action}`,
      route(async (c) => {
        const body = await readBody(c);
        const loop = typeof body.loop === 'string' ? body.loop : undefined;
        const targets = typeof body.repo === 'string' ? repos.filter((repo) => repo.id === body.repo) : repos;
        if (targets.length === 0) return c.json({ ok: false, error: { code: 'NOT_FOUND', message: `No served repository "${String(body.repo)}".` } }, 404);
        const results = [];
        for (const repo of targets) {
          const scope = loop ? { loop } : {};
          results.push({ repo: repo.id, stillPausedBy: await (action === 'pause' ? repo.runtime.pause(scope) : repo.runtime.resume(scope)) });
        }
        return c.json({ ok: true, action, ...(loop ? { loop } : {}), results });
      }),
    );
  }

  // The page trades its token (a header) for a single-use ticket, since EventSource sends no header.
  app.get('/api/events/ticket', (c) => c.json({ ok: true, ticket: options.tickets.issue() }));

  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      let closed = false;
      const queue: string[] = [];
      let wake: (() => void) | null = null;
      const unsubscribe = hub.subscribe((event) => {
        queue.push(redact(JSON.stringify(event)));
        wake?.();
      });
      stream.onAbort(() => {
        closed = true;
        unsubscribe();
        wake?.();
      });
      await stream.writeSSE({ event: 'hello', data: JSON.stringify({ repos: repoList() }) });
      for (const event of hub.recent()) await stream.writeSSE({ event: 'replay', data: redact(JSON.stringify(event)) });
      const heartbeat = setInterval(() => {
        queue.push('');
        wake?.();
      }, options.heartbeatMs ?? 15_000);
      heartbeat.unref();
      try {
        while (!closed) {
          if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
          for (const data of queue.splice(0)) {
            if (data === '') await stream.write(': heartbeat\n\n');
            else await stream.writeSSE({ event: 'tick', data });
          }
        }
      } finally {
        clearInterval(heartbeat);
        unsubscribe();
      }
    }),
  );

  app.notFound((c) => c.json({ ok: false, error: { code: 'NOT_FOUND', message: 'No such page or API route.' } }, 404));
  return app;
}

async function readBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Where a kept change can be reviewed, without the host's absolute layout:
 * relative to the checkout when inside it, `~/…` under the home directory.
 *
 * @example
 * ```ts
 * reviewPath('/home/me/.local/state/loop-runtime/app-1a2b/worktrees/bug-1', '/src/app', '/home/me'); // → '~/.local/state/loop-runtime/app-1a2b/worktrees/bug-1'
 * ```
 */
export function reviewPath(path: string, root: string, home = homedir()): string {
  const inRoot = relative(root, path);
  if (inRoot && !inRoot.startsWith('..') && !isAbsolute(inRoot)) return inRoot.split(sep).join('/');
  const inHome = relative(home, path);
  if (home !== '/' && inHome && !inHome.startsWith('..') && !isAbsolute(inHome)) return `~/${inHome.split(sep).join('/')}`;
  return path;
}
