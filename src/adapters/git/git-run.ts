/**
 * The one way adapters run git: raw arguments in, text out, and git
 * failures turned into data (`GitFailure`) with the command and stderr tail,
 * so adapters never leak a library error.
 *
 * Git runs through simple-git (the design's git library), loaded on the first
 * call so commands that run no git pay nothing for it. What the adapters rely
 * on is kept: stdin closed, output byte-exact (simple-git does not trim `raw`),
 * a non-zero exit a failure even with empty stderr (`merge-base --is-ancestor`,
 * which simple-git's default error detection would read as success), and a
 * missing directory or binary a failure, not a crash.
 */
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

/**
 * Put before every git command loop-runtime runs, here and in the state branch's runner: none of the repository's
 * hooks runs (`worktree add`/`checkout` run `post-checkout`, `update-ref`/`branch`/`reset` run
 * `reference-transaction`, `rebase` runs `post-rewrite`, `push` runs `pre-push`). A hook is code from the repository,
 * which an agent may have written (a tracked `core.hooksPath`), running outside the sandbox. A `-c` on the command
 * line outranks every config file and works on every git version. The argument guard lets exactly this setting
 * through, in front of the caller's arguments only (see unsafeFor).
 */
export const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'] as const;

/** The user's own transport settings, passed through so pushes authenticate as they do in a shell. */
const TRANSPORT_KEYS = ['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_ASKPASS', 'SSH_ASKPASS'] as const;

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
  /** Null on exit code 0; otherwise what went wrong (`exit code 1`, the spawn error). */
  failure: string | null;
  error?: Error;
}

type SimpleGitModule = typeof import('simple-git');
let simpleGitModule: Promise<SimpleGitModule> | null = null;

/**
 * The categories of simple-git's argument guard our own calls need: `init --template=` (an empty template, for the
 * dry run's object-borrowing copy), the NO_HOOKS runGit puts in front of every command (unless the caller's own
 * arguments name a hooks path), and the user's own transport settings when
 * they have them. Every other guard
 * stays on, so an item-derived value that reached an argument could not turn on a hook, pager or fsmonitor.
 */
function unsafeFor(env: Record<string, string>, args: readonly string[]): Record<string, boolean> {
  const noHooks = !args.some((arg) => /hookspath/i.test(arg));
  return {
    allowUnsafeTemplateDir: true,
    ...(noHooks ? { allowUnsafeHooksPath: true } : {}),
    ...(env['GIT_SSH_COMMAND'] || env['GIT_SSH'] ? { allowUnsafeSshCommand: true } : {}),
    ...(env['GIT_ASKPASS'] || env['SSH_ASKPASS'] ? { allowUnsafeAskPass: true } : {}),
  };
}

/** Runs git once through simple-git; never rejects. */
async function runGit(directory: string, args: readonly string[], env: Record<string, string>): Promise<GitOutput> {
  const { simpleGit } = await (simpleGitModule ??= import('simple-git'));
  const seen: { exit?: { exitCode: number; stdout: string; stderr: string } } = {};
  try {
    const client = simpleGit({
      baseDir: directory,
      // The environment is built here and passed whole: let simple-git pass the GIT_* keys we chose.
      allowEnvironment: Object.keys(env),
      unsafe: unsafeFor(env, args),
      // Close stdin at once: a git command that reads input (hash-object --stdin) must end, not wait.
      input: () => Buffer.alloc(0),
      errors: (error, result) => {
        const exit = { exitCode: result.exitCode, stdout: Buffer.concat(result.stdOut).toString('utf8'), stderr: Buffer.concat(result.stdErr).toString('utf8') };
        seen.exit = exit;
        if (result.exitCode === 0) return undefined;
        return error ?? Buffer.from(exit.stderr || exit.stdout || `exit code ${result.exitCode}`);
      },
    })
      .env(env)
      .outputHandler((_command, stdout) => {
        // simple-git waits 50 ms more after a process that printed nothing (its completion plugin's rule for
        // "no data seen"), which most of a tick's git commands are (`reset --hard --quiet`, `worktree move`,
        // `add --all`, an empty `status`): ~20 such waits made a second of every tick. The output has all
        // arrived once stdout ends, so an empty chunk then tells it so; nothing is added to the output.
        stdout.once('end', () => stdout.emit('data', Buffer.alloc(0)));
      });
    const stdout = await client.raw([...NO_HOOKS, ...args]);
    return { stdout, stderr: seen.exit?.stderr ?? '', failure: null };
  } catch (error) {
    const cause = error instanceof Error ? error : new Error(String(error));
    const ran = seen.exit;
    if (ran && ran.exitCode !== 0) return { stdout: ran.stdout, stderr: ran.stderr, failure: `exit code ${ran.exitCode}`, error: cause };
    return { stdout: ran?.stdout ?? '', stderr: ran?.stderr ?? '', failure: `could not run git: ${cause.message}`, error: cause };
  }
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
