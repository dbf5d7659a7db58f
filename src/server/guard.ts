/**
 * The console's doors: which Host a request may name (a DNS-rebinding page
 * cannot reach a loopback server under its own name), which requests may
 * change anything (a token and the same origin), and the token itself —
 * created once per repository with mode 0600 and shown once.
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
  /** Host header values accepted; null accepts any (only when bound beyond loopback on purpose). */
  allowedHosts: ReadonlySet<string> | null;
}

export type GuardVerdict = { ok: true } | { ok: false; status: 403; reason: string; message: string };

const refuse = (reason: string, message: string): GuardVerdict => ({ ok: false, status: 403, reason, message });

/** Judges one request by its method and headers (lower-case names). */
export function judgeRequest(method: string, headers: (name: string) => string | undefined, settings: GuardSettings): GuardVerdict {
  const host = headers('host') ?? '';
  if (settings.allowedHosts && !settings.allowedHosts.has(host.toLowerCase())) {
    return refuse('host', `Host "${host}" is not this server. Open the address serve printed.`);
  }
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return { ok: true };
  if (settings.readOnly) return refuse('read-only', 'This console was started with --read-only: nothing can be changed from it.');
  const origin = headers('origin');
  if (origin !== undefined && origin !== `http://${host}`) return refuse('origin', `A request from ${origin} may not change anything here.`);
  const site = headers('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return refuse('origin', `A ${site} request may not change anything here.`);
  if (!tokensMatch(headers(TOKEN_HEADER), settings.token)) {
    return refuse('token', `A change needs the token serve printed (header ${TOKEN_HEADER}). It is stored in ${TOKEN_FILE}.`);
  }
  return { ok: true };
}

/** Host values a loopback server answers to. */
export function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1';
}
