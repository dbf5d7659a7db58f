/**
 * The console's doors: which Host a request may name (a DNS-rebinding page
 * cannot reach the server under its own name), who may read (every API route,
 * reads and the SSE stream included, needs the token: run logs and diffs are
 * no business of another local user), which requests may change anything (the
 * token and the same origin), and the token itself — created once per
 * repository with mode 0600 and shown once. Page files (static, no data) are
 * served to anyone who names an allowed Host.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { excludeRuntimeFiles } from '../adapters/git/exclude-runtime-files.js';

export const TOKEN_FILE = '.loop-runtime/serve-token';
export const TOKEN_HEADER = 'x-loop-runtime-token';

/** Reads the token, or creates it (mode 0600, exclusive create so two starts agree). `created` says whether to print it. */
export async function ensureToken(root: string): Promise<{ token: string; created: boolean; file: string }> {
  const file = join(root, TOKEN_FILE);
  await mkdir(join(root, '.loop-runtime'), { recursive: true });
  // The token is a secret in the checkout: `git add -A` must never stage it.
  await excludeRuntimeFiles(root);
  const token = randomBytes(24).toString('base64url');
  try {
    await writeFile(file, `${token}\n`, { flag: 'wx', mode: 0o600 });
    return { token, created: true, file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const existing = (await readFile(file, 'utf8')).trim();
  // A token others can read is no secret: tighten it rather than trust it.
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  if (existing.length < 16) {
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    return { token, created: true, file };
  }
  return { token: existing, created: false, file };
}

export function tokensMatch(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface GuardSettings {
  token: string;
  readOnly: boolean;
  /** Host header values accepted (lower case, with the port); every other Host is refused. */
  allowedHosts: ReadonlySet<string>;
  /** Redeems the single-use ticket `/api/events?ticket=…` carries (EventSource sends no header). */
  redeemTicket?: (ticket: string | undefined) => boolean;
}

export type GuardVerdict = { ok: true } | { ok: false; status: 401 | 403 | 421; reason: string; message: string };

const refuse = (reason: string, message: string, status: 401 | 403 | 421 = 403): GuardVerdict => ({ ok: false, status, reason, message });

/** What the guard reads of a request. */
export interface GuardRequest {
  method: string;
  /** The URL path, e.g. `/api/loops`. */
  path: string;
  /** Lower-case header names. */
  header(name: string): string | undefined;
  query(name: string): string | undefined;
}

/** Judges one request: Host first, then the token for every API route, then what a change needs. */
export function judgeRequest(request: GuardRequest, settings: GuardSettings): GuardVerdict {
  const { method, header: headers } = request;
  const host = headers('host') ?? '';
  if (!settings.allowedHosts.has(host.toLowerCase())) {
    return refuse('host', `Host "${host}" is not a name this server answers to (${[...settings.allowedHosts].join(', ')}). To fix: open the address serve printed, or start serve with --allowed-host ${host.replace(/:\d+$/, '') || '<name>'}.`, 421);
  }
  const api = request.path === '/api' || request.path.startsWith('/api/');
  const reading = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  if (!api) return reading ? { ok: true } : refuse('method', 'Page files are read-only.');
  const withToken = tokensMatch(headers(TOKEN_HEADER), settings.token);
  const withTicket = !withToken && request.path === '/api/events' && reading && Boolean(settings.redeemTicket?.(request.query('ticket')));
  if (!withToken && !withTicket) {
    return refuse('token', `The console's API needs the token serve printed (header ${TOKEN_HEADER}). It is stored in ${TOKEN_FILE}. To fix: open the link serve printed, or paste the token into the page.`, 401);
  }
  if (reading) return { ok: true };
  if (settings.readOnly) return refuse('read-only', 'This console was started with --read-only: nothing can be changed from it.');
  const origin = headers('origin');
  if (origin !== undefined && origin !== `http://${host}`) return refuse('origin', `A request from ${origin} may not change anything here.`);
  const site = headers('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return refuse('origin', `A ${site} request may not change anything here.`);
  return { ok: true };
}

/** Host values a loopback server answers to. */
export function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/**
 * The Host values the server answers to: the loopback names, the bound address (unless a wildcard such as
 * `0.0.0.0`), and each name the operator allowed (`--allowed-host`, with or without a port: `console.internal`
 * allows `console.internal:<port>` and, behind a proxy that drops the port, `console.internal`).
 *
 * @example
 * ```ts
 * allowedHosts('0.0.0.0', 4317, ['ops.example']); // → 127.0.0.1:4317, localhost:4317, [::1]:4317, ops.example:4317, ops.example
 * ```
 */
export function allowedHosts(bound: string, port: number, named: readonly string[] = []): Set<string> {
  const hosts = loopbackHosts(port);
  const wildcard = bound === '0.0.0.0' || bound === '::' || bound === '';
  if (!wildcard) hosts.add(`${bound.includes(':') ? `[${bound}]` : bound}:${port}`.toLowerCase());
  for (const name of named) {
    const lower = name.trim().toLowerCase();
    if (!lower) continue;
    hosts.add(lower);
    if (!/:\d+$/.test(lower) || lower.endsWith(']')) hosts.add(`${lower}:${port}`);
  }
  return hosts;
}

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1';
}
