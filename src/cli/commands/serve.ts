/**
 * `loop-runtime serve`: the operator console (a local web page and a JSON/SSE
 * API) over one or more repositories. Runs until SIGINT, SIGTERM or SIGHUP (a second one exits at once). Prints the
 * address once, with the token the first time it is created.
 */
import { resolve } from 'node:path';
import { ExitCode } from '../../core/errors.js';
import { LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { loadLockLibrary } from '../../adapters/fs/lock-library.js';
import { stopped } from '../stop-signals.js';

function parsePort(value: unknown): number {
  if (value === undefined) return 4317;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new LoopRuntimeError('USAGE', `--port ${String(value)} is not a port.`, { fix: 'use a number from 1 to 65535 (0 picks a free one).' });
  }
  return port;
}

/** The repositories: every `--cwd` given (repeatable), else the current directory. */
function repositories({ options, io }: CommandContext): string[] {
  const given = options.cwd;
  const list = Array.isArray(given) ? given.map(String) : typeof given === 'string' ? [given] : [];
  return list.length > 0 ? [...new Set(list.map((dir) => resolve(process.cwd(), dir)))] : [io.cwd];
}

/** A repeatable flag's values (cac gives a string for one, an array for several). */
function listOption(value: unknown): string[] {
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
}

export async function serveCommand(context: CommandContext): Promise<CommandOutput> {
  const { options, io } = context;
  const { startServer } = await import('../../server/serve.js');
  const host = typeof options.host === 'string' ? options.host : '127.0.0.1';
  // proper-lockfile loads on the first lock and brings signal-exit, whose listeners must come before the graceful
  // stop's below (src/adapters/fs/lock-library.ts). Loaded before the work starts, no lock taken meanwhile can
  // put them in the wrong order, and the stop is registered in the same turn as the lines announcing readiness.
  await loadLockLibrary();
  const server = await startServer({
    repos: repositories(context),
    env: io.env,
    clock: io.clock,
    host,
    port: parsePort(options.port),
    readOnly: Boolean(options.readOnly),
    expose: Boolean(options.expose),
    allowedHosts: listOption(options.allowedHost),
    version: (await import('../package-version.js')).packageVersion(),
  });
  // What the token opens, said at every start: reads are as private as changes.
  const readable = 'loops, run history and run logs, diffs of kept changes, spend and the live tick stream';
  const changes = server.readOnly ? 'nothing can be changed (--read-only)' : 'approve, reject, pause and resume';
  if (server.host !== '127.0.0.1' && server.host !== 'localhost' && server.host !== '::1') {
    io.announce(`WARNING: the console listens on ${server.host}, reachable from other machines over plain HTTP. Anyone with the token can read ${readable}; ${changes}.`);
  } else {
    io.announce(`Every API request needs the token; with it: read ${readable}; ${changes}.`);
  }
  io.announce(`Answers to Host: ${server.allowedHosts.join(', ')} (others get 421; add names with --allowed-host).`);
  io.announce(`loop-runtime console: ${server.url}${server.readOnly ? ' (read-only)' : ''}`);
  if (server.tokenCreated && !server.readOnly) {
    io.announce(`Open ${server.url}#token=${server.token}`);
    io.announce(`Token (shown once; stored in ${server.tokenFile}, mode 0600): ${server.token}`);
  } else if (!server.readOnly) {
    io.announce(`Token: in ${server.tokenFile} (paste it into the page once, or open ${server.url}#token=<token>)`);
  }
  // The one stop path (stop-signals.ts): SIGINT, SIGTERM and SIGHUP close the console; a second signal exits at once.
  const signal = await stopped(io.stopSignal());
  await server.close();
  return { exitCode: ExitCode.ok, json: { stopped: signal, url: server.url }, text: `stopped (${signal})` };
}
