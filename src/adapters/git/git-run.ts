/**
 * The one way adapters run git: raw arguments in, text out, and git
 * failures turned into data (`GitFailure`) with the command and stderr tail,
 * so adapters never leak a library error.
 *
 * Git is spawned with node:child_process directly, not execa: a dry run
 * makes ~14 git calls, and execa's per-call stream plumbing cost ~1.5 ms of
 * main-thread time each plus ~4 ms to load its 186 KB (issue 15). What execa
 * gave here is reproduced: stdin ignored, output kept byte-exact (no final
 * newline stripped), an output cap that fails rather than cuts, and a
 * non-zero exit or a spawn error as a failure.
 */
import { spawn } from 'node:child_process';
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

/** Output larger than this is an error, not a silent cut (patches are capped later, by file). */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/**
 * The environment for git: the process's, minus GIT_* (a surrounding hook's
 * GIT_DIR would point every command at the wrong repository) and minus
 * editors and pagers (nothing here is interactive).
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
  const raw = async (args: readonly string[], env?: Record<string, string>): Promise<string> => {
    const result = await runGit(directory, args, { ...baseEnv(), ...env });
    // A non-zero exit is a failure even with empty stderr (`merge-base --is-ancestor`).
    if (result.failure !== null) {
      const detail = result.stderr || result.stdout || result.failure;
      throw new GitCommandError(args, detail, { cause: result.error ?? result });
    }
    return result.stdout;
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

interface GitOutput {
  stdout: string;
  stderr: string;
  /** Null on exit code 0; otherwise what went wrong (`exit code 1`, `killed by SIGTERM`, the spawn error). */
  failure: string | null;
  error?: Error;
}

/** Spawns git once: stdin ignored, stdout and stderr collected as UTF-8, never rejects. */
function runGit(directory: string, args: readonly string[], env: Record<string, string>): Promise<GitOutput> {
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let bytes = 0;
    let overflow = false;
    let spawnError: Error | undefined;
    const child = spawn('git', [...args], { cwd: directory, env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_OUTPUT_BYTES) {
        overflow = true;
        child.kill();
        return;
      }
      into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    child.on('error', (error) => {
      spawnError = error;
    });
    // 'close' comes after 'error' (a spawn failure) and after both streams ended.
    child.on('close', (code, signal) => {
      const text = { stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
      if (spawnError) return resolve({ ...text, failure: `could not run git: ${spawnError.message}`, error: spawnError });
      if (overflow) return resolve({ ...text, failure: `its output exceeded ${MAX_OUTPUT_BYTES} bytes` });
      if (code === 0) return resolve({ ...text, failure: null });
      resolve({ ...text, failure: code === null ? `killed by ${signal ?? 'a signal'}` : `exit code ${code}` });
    });
  });
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
