/**
 * Starts the operator console: opens each repository through `openRuntime`,
 * loads the page's files, tails the event journals and listens — on
 * 127.0.0.1 unless `expose` is set for another address.
 *
 * @example
 * ```ts
 * const server = await startServer({ repos: ['/repo'], env: process.env, clock: systemClock });
 * console.log(server.url); // http://127.0.0.1:4317/
 * await server.close();
 * ```
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { LoopRuntimeError } from '../core/errors.js';
import type { Clock } from '../core/ports/index.js';
import { redactorFor, type Redact } from '../composition/wiring.js';
import { createApp } from './app.js';
import { loadAssets } from './assets.js';
import { EventHub } from './event-hub.js';
import { allowedHosts, ensureToken, isLoopback, type GuardSettings } from './guard.js';
import { createTicketBook } from './event-tickets.js';
import { openRepositories } from './served-repository.js';

export const DEFAULT_PORT = 4317;

export interface ServeOptions {
  /** Repository roots to serve (at least one). */
  repos: readonly string[];
  env: Record<string, string | undefined>;
  clock: Clock;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  readOnly?: boolean;
  /** Required to bind anything but loopback. */
  expose?: boolean;
  /** Host names (or name:port) the server answers to besides loopback and the bound address (`--allowed-host`). */
  allowedHosts?: readonly string[];
  version?: string;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  token: string;
  /** True when this start created the token (print it once). */
  tokenCreated: boolean;
  tokenFile: string;
  readOnly: boolean;
  /** The Host values answered (lower case); any other Host gets 421. */
  allowedHosts: string[];
  close(): Promise<void>;
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host) && !options.expose) {
    throw new LoopRuntimeError('USAGE', `serve binds ${host} only with --expose: the console would be reachable from other machines.`, {
      fix: `drop --host to stay on 127.0.0.1, or add --expose (and keep --read-only unless you trust the network).`,
    });
  }
  if (options.repos.length === 0) throw new LoopRuntimeError('USAGE', 'serve needs at least one repository.', { fix: 'pass --cwd DIR (repeatable).' });
  const repos = await openRepositories(options.repos, options.env, options.clock);
  const token = await ensureToken(repos[0]!.runtime.project.root);
  const assets = await loadAssets();
  const hub = new EventHub();
  await hub.start(repos);
  const tickets = createTicketBook(() => options.clock.now());
  // No Host is answered until the port is known (below).
  const guard: GuardSettings = { token: token.token, readOnly: Boolean(options.readOnly), allowedHosts: new Set<string>(), redeemTicket: (ticket) => tickets.redeem(ticket) };
  const app = createApp({ repos, assets, hub, guard, tickets, redact: redactorForAll(options.env, repos.map((repo) => repo.runtime.project.root)), version: options.version ?? '0.0.0' });

  const server = await new Promise<Server>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: host, port: options.port ?? DEFAULT_PORT }, () => resolve(started as Server));
    started.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new LoopRuntimeError('USAGE', `Port ${options.port} on ${host} is in use.`, { fix: 'pass another --port, or stop the other server.' })
          : error,
      ),
    );
  });
  const port = (server.address() as AddressInfo).port;
  guard.allowedHosts = allowedHosts(host, port, options.allowedHosts ?? []);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/`,
    host,
    port,
    token: token.token,
    tokenCreated: token.created,
    tokenFile: token.file,
    readOnly: guard.readOnly,
    allowedHosts: [...guard.allowedHosts],
    close: async () => {
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every response passes each served repository's redactor (a page shows several repositories). */
function redactorForAll(env: Record<string, string | undefined>, roots: readonly string[]): Redact {
  const redactors = roots.map((root) => redactorFor(env, root));
  return (text) => redactors.reduce((current, redact) => redact(current), text);
}
