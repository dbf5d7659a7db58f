/**
 * The values in the repository's secret files (`.env*`, `.npmrc`, credentials
 * files…), redacted from every command's output along with the environment's
 * secrets. The sandbox keeps the checkout out of sight; this is the second
 * line, for a value that reaches a command some other way (a tracked file, a
 * file the agent wrote, an unsandboxed run below L3).
 *
 * The checkout is the one given, or the one the worktree's `.git` file leads
 * to, so a runner built without it (the `sandbox run` command, a test) still
 * knows it.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { findSecretFiles, type SecretFiles } from '../agent-sandbox/find-secret-files.js';
import { MIN_SECRET_LENGTH } from '../../core/security/redact-secrets.js';

export interface RepositorySettings {
  /** The user's checkout. Default: found from the worktree's `.git` file. */
  root: string;
  /** Directories not to walk (worktrees inside the checkout). */
  skip?: readonly string[];
}

/**
 * The checkout a linked worktree belongs to: `.git` holds `gitdir: <checkout>/.git/worktrees/<id>`,
 * whose `commondir` leads to `<checkout>/.git`. Null for anything else (a plain directory, a checkout).
 */
export async function checkoutOfWorktree(worktree: string): Promise<string | null> {
  const pointer = await readFile(join(worktree, '.git'), 'utf8').catch(() => null);
  const gitdir = pointer ? /^gitdir:\s*(.+?)\s*$/m.exec(pointer)?.[1] : undefined;
  if (!gitdir) return null;
  const absoluteGitdir = isAbsolute(gitdir) ? gitdir : resolve(worktree, gitdir);
  const common = (await readFile(join(absoluteGitdir, 'commondir'), 'utf8').catch(() => null))?.trim();
  const commonDir = common ? resolve(absoluteGitdir, common) : dirname(dirname(absoluteGitdir));
  return dirname(commonDir);
}

/** Remote URLs in the checkout's `.git/config`: one with a token in it (`https://user:token@host/…`) gives its password. */
async function remoteUrls(checkout: string): Promise<string[]> {
  const config = await readFile(join(checkout, '.git', 'config'), 'utf8').catch(() => '');
  return [...config.matchAll(/^\s*(?:push)?url\s*=\s*(\S+)\s*$/gim)].map((match) => match[1] ?? '').filter((url) => /:\/\/[^/@\s]*:[^@\s]+@/.test(url));
}

/** A URL's password is a secret on its own: a command may print just that part of `DATABASE_URL`. */
function withUrlPasswords(values: readonly string[]): string[] {
  const result = new Set(values);
  for (const value of values) {
    const match = /^[a-z][a-z0-9+.-]*:\/\/[^/:@\s]*:([^@\s]+)@/i.exec(value);
    const password = match?.[1] ? decodeURIComponentSafe(match[1]) : undefined;
    if (password && password.length >= MIN_SECRET_LENGTH) result.add(password);
  }
  return [...result];
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Secret-file values per command: the checkout's (walked once per checkout for this runner's life) and
 * the worktree's (walked per command: the agent may have added one).
 *
 * @example
 * ```ts
 * const secrets = createRepositorySecrets({ root: checkout });
 * const values = await secrets.valuesFor(worktree); // ['canary-…', …]
 * ```
 */
export function createRepositorySecrets(settings?: RepositorySettings) {
  const checkouts = new Map<string, Promise<SecretFiles>>();
  return {
    async valuesFor(worktree: string): Promise<string[]> {
      const root = settings?.root ?? (await checkoutOfWorktree(worktree));
      const values: string[] = [];
      if (root) {
        let found = checkouts.get(root);
        if (!found) {
          found = findSecretFiles(root, { skip: [...(settings?.skip ?? []), worktree] });
          checkouts.set(root, found);
        }
        values.push(...(await found).values, ...(await remoteUrls(root)));
      }
      if (root !== worktree) values.push(...(await findSecretFiles(worktree)).values);
      return withUrlPasswords(values);
    },
  };
}

export type RepositorySecrets = ReturnType<typeof createRepositorySecrets>;

/**
 * A promise started before the command it serves and awaited after it: marked handled now, so a failure while the
 * command runs is not an unhandled rejection, and still thrown where it is awaited.
 */
export function handledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
