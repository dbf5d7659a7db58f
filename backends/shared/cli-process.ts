/**
 * The process side every CLI backend shares (Codex, OpenCode, Gemini CLI, and
 * the pattern Claude Code follows): an isolated home per run, a scrubbed
 * environment, the CLI started as the leader of its own process group, its
 * stdout read line by line, and the whole group killed — SIGTERM, then SIGKILL
 * after a grace period — when the caller stops it (budget reached, timeout,
 * abort). Mapping lines and exit codes to an AgentResult stays in each backend.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { DEFAULT_ENV_ALLOWLIST, scrubEnv } from '../../src/core/security/index.js';

/** Why we stopped a CLI ourselves. */
export type StopReason = 'budget' | 'max-turns' | 'timeout' | 'aborted';

export interface CliProcessOptions {
  binary: string;
  args: readonly string[];
  cwd: string;
  /** The child's whole environment (build it with `scrubbedCliEnv`); nothing of process.env is added. */
  env: Record<string, string>;
  /** Written to stdin, then stdin is closed. */
  input?: string;
  /** Wall-clock limit; past it the group is stopped with reason "timeout". */
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  signal?: { aborted: boolean; addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void; removeEventListener(type: 'abort', listener: () => void): void };
  /** Called for every stdout line, in order. Call `stop` from here to kill the group mid-stream. */
  onLine?: (line: string) => void;
  /** How much of stderr to keep (from the end). Default 4000 characters. */
  stderrLimit?: number;
}

/** How the process ended. `notInstalled` means the binary could not be started at all (ENOENT/EACCES). */
export interface CliExit {
  exitCode: number | null;
  signal: string | null;
  killedFor?: StopReason;
  stderrTail: string;
  notInstalled: boolean;
}

export interface CliProcess {
  pid: number | undefined;
  /** Kills the process group (idempotent; the first reason wins). */
  stop(why: StopReason): void;
  /** Resolves after the process exited and every stdout line was delivered to `onLine`. Never rejects. */
  done: Promise<CliExit>;
}

/** Signals the whole process group (the CLI runs detached as its leader), then SIGKILL after `graceMs`. The only copy. */
export function killProcessGroup(pid: number | undefined, graceMs: number): void {
  if (pid === undefined) return;
  signalGroup(pid, 'SIGTERM');
  setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs).unref();
}

function signalGroup(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(-pid, name);
  } catch {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  }
}

/**
 * Starts a CLI in its own process group and streams its stdout lines.
 *
 * @example
 * ```ts
 * const cli = startCliProcess({ binary: 'codex', args: ['exec', '--json', '-'], cwd, env, input: prompt, timeoutMs: 60_000,
 *   onLine: (line) => { if (tokensSoFar(line) >= maxTokens) cli.stop('budget'); } });
 * const exit = await cli.done; // { exitCode, signal, killedFor, stderrTail, notInstalled }
 * ```
 */
export function startCliProcess(options: CliProcessOptions): CliProcess {
  const limit = options.stderrLimit ?? 4000;
  const graceMs = options.killGraceMs ?? 2000;
  let killedFor: StopReason | undefined;
  let stderr = '';
  // Stopped before it starts: nothing is started (runProcess's reason: a sandbox killed in its first milliseconds can
  // outlive the kill).
  if (options.signal?.aborted) return { pid: undefined, stop: () => undefined, done: Promise.resolve({ exitCode: null, signal: null, killedFor: 'aborted', stderrTail: '', notInstalled: false }) };
  const child = execa(options.binary, [...options.args], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
    reject: false,
    buffer: false,
    detached: true,
    cleanup: true,
    stripFinalNewline: false,
  });
  const stop = (why: StopReason) => {
    if (killedFor) return;
    killedFor = why;
    killProcessGroup(child.pid, graceMs);
  };
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = () => stop('aborted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-limit);
  });
  const lines = child.stdout ? readline.createInterface({ input: child.stdout, crlfDelay: Infinity }) : null;
  const reading = (async () => {
    if (!lines) return;
    for await (const line of lines) options.onLine?.(line);
  })();
  const done = (async (): Promise<CliExit> => {
    const outcome = await child;
    await reading.catch(() => undefined);
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    // The group may still hold children (tool subprocesses) after the leader exited.
    if (killedFor && child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    const code = (outcome as { code?: string }).code;
    const notInstalled =
      code === 'ENOENT' || code === 'EACCES' || (outcome.failed && outcome.exitCode === undefined && /ENOENT|EACCES/.test(String(outcome.message)));
    return {
      exitCode: outcome.exitCode ?? null,
      signal: outcome.signal ?? null,
      ...(killedFor ? { killedFor } : {}),
      stderrTail: stderr.trim(),
      notInstalled,
    };
  })();
  return { pid: child.pid, stop, done };
}

/** A private directory for one CLI run (its HOME / config dir), removed by `remove()`. */
export interface IsolatedHome {
  path: string;
  remove(): Promise<void>;
}

/**
 * Creates a fresh, empty home (mode 0700 via mkdtemp) under `parent`, by
 * default the OS temp dir. Some CLIs refuse parts of their home under the temp
 * dir (codex will not install its sandbox helper there): give those a parent.
 */
export async function createIsolatedHome(prefix: string, parent: string = tmpdir()): Promise<IsolatedHome> {
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const home = await mkdtemp(path.join(parent, `${prefix}-`));
  return { path: home, remove: () => rm(home, { recursive: true, force: true }) };
}

export interface CliEnvOptions {
  /** Usually process.env. */
  base: Readonly<Record<string, string | undefined>>;
  /** Extra names (exact, or prefixes ending in `*`) the CLI needs, e.g. its API key variable. */
  allow?: readonly string[];
  /** Added last; wins over everything. */
  env?: Record<string, string>;
  /** Sets HOME (and XDG dirs inside it) so the CLI reads and writes no user config. */
  home?: string;
}

/**
 * The child's environment: DEFAULT_ENV_ALLOWLIST plus `allow` from the base,
 * the isolated home, then `env`. Secret-looking names pass only when named
 * exactly in `allow` (never through a wildcard).
 *
 * @example
 * ```ts
 * scrubbedCliEnv({ base: process.env, allow: ['OPENAI_API_KEY'], home: '/tmp/codex-x' });
 * ```
 */
export function scrubbedCliEnv(options: CliEnvOptions): Record<string, string> {
  const env = scrubEnv(options.base, [...DEFAULT_ENV_ALLOWLIST, ...(options.allow ?? [])]);
  if (options.home) {
    env['HOME'] = options.home;
    env['XDG_CONFIG_HOME'] = path.join(options.home, '.config');
    env['XDG_DATA_HOME'] = path.join(options.home, '.local', 'share');
    env['XDG_CACHE_HOME'] = path.join(options.home, '.cache');
    env['XDG_STATE_HOME'] = path.join(options.home, '.local', 'state');
  }
  Object.assign(env, options.env ?? {});
  return env;
}
