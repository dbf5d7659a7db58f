/**
 * A thin layer over simple-git: one `git(directory)` per working directory,
 * raw commands in, text out, and git failures turned into data (`GitFailure`)
 * with the command and stderr tail, so adapters never leak a library error.
 */
import { simpleGit, type SimpleGit } from 'simple-git';
import type { Failure } from '../../core/ports/index.js';

export interface GitRunner {
  readonly directory: string;
  /** Runs `git <args>`; throws GitCommandError on a non-zero exit. */
  raw(args: readonly string[], env?: Record<string, string>): Promise<string>;
  /** Like `raw`, but returns null instead of throwing. */
  tryRaw(args: readonly string[], env?: Record<string, string>): Promise<string | null>;
}

export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    options?: { cause?: unknown },
  ) {
    super(`git ${args.join(' ')} failed: ${stderr.trim().split('\n').slice(-3).join(' ') || 'unknown error'}`, options);
    this.name = 'GitCommandError';
  }
}

/** Keeps git from prompting or taking optional locks in the user's repository. */
const QUIET_ENV: Record<string, string> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
};

/** The user's own transport settings, passed through so pushes authenticate as they do in a shell. */
const TRANSPORT_KEYS = ['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_ASKPASS', 'SSH_ASKPASS'] as const;

/**
 * The environment for git: the process's, minus GIT_* (a surrounding hook's
 * GIT_DIR would point every command at the wrong repository) and minus
 * editors and pagers (nothing here is interactive; simple-git refuses them).
 */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(GIT_.*|EDITOR|VISUAL|PAGER|PREFIX|SSH_ASKPASS)$/i.test(key)) continue;
    env[key] = value;
  }
  for (const key of TRANSPORT_KEYS) {
    const value = process.env[key];
    if (value) env[key] = value;
  }
  return { ...env, ...QUIET_ENV };
}

/**
 * @example
 * ```ts
 * const head = (await git('/repo').raw(['rev-parse', 'HEAD'])).trim();
 * ```
 */
export function git(directory: string): GitRunner {
  const client = (env?: Record<string, string>): SimpleGit => {
    const extra = { ...QUIET_ENV, ...env };
    // simple-git drops GIT_* variables it was not told to allow.
    const transport = TRANSPORT_KEYS.filter((key) => process.env[key]);
    return simpleGit({
      baseDir: directory,
      maxConcurrentProcesses: 8,
      trimmed: false,
      allowEnvironment: [...Object.keys(extra), ...transport],
      unsafe: { allowUnsafeSshCommand: true, allowUnsafeAskPass: true },
      // By default simple-git ignores a non-zero exit with empty stderr (`merge-base --is-ancestor`); we do not.
      errors: (error, result) => {
        if (error) return error;
        if (result.exitCode === 0) return undefined;
        return Buffer.concat([...result.stdErr, ...result.stdOut]);
      },
    }).env({ ...baseEnv(), ...extra });
  };
  const shared = client();
  const raw = async (args: readonly string[], env?: Record<string, string>): Promise<string> => {
    try {
      return await (env ? client(env) : shared).raw([...args]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new GitCommandError(args, message, { cause: error });
    }
  };
  return {
    directory,
    raw,
    tryRaw: async (args, env) => {
      try {
        return await raw(args, env);
      } catch {
        return null;
      }
    },
  };
}

/** Turns an error from a git step into a port failure. */
export function gitFailure(what: string, error: unknown, reason: 'git' | 'io' | 'not-found' = 'git'): Failure<'git' | 'io' | 'not-found'> {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    reason,
    message: `${what}: ${message}`,
    retryable: false,
    detail: error instanceof GitCommandError ? { args: error.args, stderr: error.stderr.slice(-2000) } : {},
  };
}

/** Environment that sets the author and committer of a commit or rebase. */
export function identityEnv(author: { name: string; email: string }): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
  };
}
