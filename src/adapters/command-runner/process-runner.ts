/**
 * A CommandRunner on execa without isolation, and the process core the
 * sandboxed runners reuse.
 *
 * Guarantees:
 * - the command runs detached in its own process group, and the whole group
 *   is killed on timeout (SIGTERM, then SIGKILL after a grace period) and
 *   again when the command exits, so no background grandchild outlives it;
 * - output is the tail of stdout+stderr, capped, with a truncation marker,
 *   and redacted (secret values from the environment and the repository's
 *   secret files, and token shapes);
 * - exit code, signal and timeout are data; a failing command never throws.
 */
import type { CommandSpec } from '../../core/plan/execution-plan.js';
import type { AbortSignalLike, Clock, CommandEvidence, CommandRunner, CommandRunOptions } from '../../core/ports/index.js';
import { createRedactor } from '../../core/security/redact-secrets.js';
import { DEFAULT_ENV_ALLOWLIST, scrubEnv, secretValuesFromEnv } from '../../core/security/scrub-env.js';
import { withDependencyBinds } from './dependency-binds.js';
import { createRepositorySecrets, handledLater, type RepositorySettings } from './repository-secrets.js';
import { withReportDir } from './report-dir.js';

export const DEFAULT_OUTPUT_LIMIT = 64 * 1024;
export const DEFAULT_KILL_GRACE_MS = 2_000;
/** Extra bytes kept before the tail so a secret cut at the boundary is still whole when redacted. */
const REDACTION_MARGIN = 4_096;

export interface ProcessSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  outputLimitBytes: number;
  killGraceMs?: number;
  signal?: AbortSignalLike;
  /** Extra file descriptors for the child, from fd 3 on (e.g. a seccomp program for bwrap). */
  extraFds?: readonly number[];
}

export interface ProcessResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** Tail of combined output, not yet redacted, including up to REDACTION_MARGIN extra bytes. */
  rawTail: string;
  totalBytes: number;
  /** Set when the process could not be started at all (missing binary, bad cwd). */
  spawnError?: string;
}

/** Keeps the last `limit` bytes of a stream of chunks. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  total = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Runs one process to completion in its own process group. Never throws for
 * a failing, timed-out or unstartable process.
 */
export async function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  // Stopped before it starts: nothing is started. A process killed in its first milliseconds can outlive the kill —
  // bubblewrap's sandboxed child calls setsid (--new-session) and sets its parent-death signal only once it runs, so
  // a SIGTERM to the group before then leaves it running, orphaned.
  if (spec.signal?.aborted) return { exitCode: null, signal: null, timedOut: false, aborted: true, rawTail: '', totalBytes: 0 };
  const tail = new TailBuffer(spec.outputLimitBytes + REDACTION_MARGIN);
  let timedOut = false;
  let aborted = false;
  // Loaded on the first command, not with the runtime: a tick without verification commands (a dry run) never needs it.
  const { execa } = await import('execa');
  const subprocess = execa(spec.file, [...spec.args], {
    cwd: spec.cwd,
    env: spec.env,
    extendEnv: false,
    // execa's types omit numbers for fd 3+, but passes them through to child_process like fd 0-2.
    stdio: ['ignore', 'pipe', 'pipe', ...(spec.extraFds ?? [])] as unknown as ['ignore', 'pipe', 'pipe'],
    buffer: false,
    reject: false,
    detached: true,
    cleanup: true,
    windowsHide: true,
  });
  const pid = subprocess.pid;
  subprocess.stdout?.on('data', (chunk: Buffer) => tail.push(chunk));
  subprocess.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));

  let graceTimer: NodeJS.Timeout | undefined;
  const terminate = () => {
    killGroup(pid, 'SIGTERM');
    graceTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), spec.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    graceTimer.unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    terminate();
  }, spec.timeoutMs);
  const onAbort = () => {
    aborted = true;
    terminate();
  };
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener('abort', onAbort, { once: true });
  // When the command itself exits, whatever it left in its group goes too
  // (and releases the output pipes it may still hold).
  subprocess.on('exit', () => killGroup(pid, 'SIGKILL'));

  try {
    const result = await subprocess;
    const spawnFailed = pid === undefined || (result.failed && result.exitCode === undefined && result.signal === undefined);
    return {
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      timedOut,
      aborted,
      rawTail: tail.text(),
      totalBytes: tail.total,
      ...(spawnFailed ? { spawnError: result.shortMessage ?? result.message ?? 'could not start the process' } : {}),
    };
  } finally {
    clearTimeout(timer);
    if (graceTimer) clearTimeout(graceTimer);
    spec.signal?.removeEventListener('abort', onAbort);
    killGroup(pid, 'SIGKILL');
  }
}

/** Caps the already-redacted tail at `limit` bytes and marks truncation. */
export function formatOutput(redactedTail: string, totalBytes: number, limit: number): string {
  const bytes = Buffer.from(redactedTail, 'utf8');
  const kept = bytes.length > limit ? bytes.subarray(bytes.length - limit).toString('utf8') : redactedTail;
  if (totalBytes <= limit) return kept;
  return `[… ${totalBytes - Buffer.byteLength(kept)} earlier bytes truncated …]\n${kept}`;
}

/** Turns a ProcessResult into evidence: redacted, capped, timed by the clock. */
export function toEvidence(
  command: string,
  result: ProcessResult,
  timing: { startedAt: number; finishedAt: number },
  limit: number,
  secrets: readonly string[],
): CommandEvidence {
  const redact = createRedactor(secrets);
  let output = formatOutput(redact(result.rawTail), result.totalBytes, limit);
  if (result.spawnError) output = `${output}${output ? '\n' : ''}[could not start: ${redact(result.spawnError)}]`;
  return {
    // A command line can carry a secret too (`curl -H "Authorization: Bearer …"`).
    command: redact(command),
    exitCode: result.spawnError && result.exitCode === null ? 127 : result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    durationMs: timing.finishedAt - timing.startedAt,
    output,
    finishedAt: timing.finishedAt,
  };
}

/** The smaller of the positive timeouts. */
export function effectiveTimeout(...values: Array<number | undefined>): number {
  const positive = values.filter((value): value is number => typeof value === 'number' && value > 0);
  return positive.length > 0 ? Math.min(...positive) : 10 * 60 * 1000;
}

export interface ProcessRunnerSettings {
  clock?: Clock;
  /** Host environment the scrubbed environment and the secret list come from. Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Variables passed through. Default: DEFAULT_ENV_ALLOWLIST. */
  envAllowlist?: readonly string[];
  /** Pass the host environment unscrubbed (not recommended; still redacted). */
  inheritEnv?: boolean;
  killGraceMs?: number;
  outputLimitBytes?: number;
  /** The user's checkout, whose secret-file values are redacted. Default: found from the worktree's `.git` file. */
  repository?: RepositorySettings;
}

const systemClock: Clock = { now: () => Date.now() };

/** Secret values to redact: from the host environment and the extra environment given per command. */
export function secretsFor(hostEnv: Record<string, string | undefined>, extra: Record<string, string> | undefined): string[] {
  return [...secretValuesFromEnv(hostEnv), ...secretValuesFromEnv(extra ?? {})];
}

/**
 * An unsandboxed CommandRunner (`isolation: 'none'`): `sh -c` in the
 * worktree with a scrubbed environment. Refused at L3 by `createSandboxedRunner`.
 *
 * @example
 * ```ts
 * const runner = createProcessRunner();
 * const evidence = await runner.run({ command: 'npm test', timeoutMs: 600_000 }, { cwd: worktree, timeoutMs: 600_000 });
 * evidence.exitCode; // 0 when the tests pass
 * ```
 */
export function createProcessRunner(settings: ProcessRunnerSettings = {}): CommandRunner {
  const clock = settings.clock ?? systemClock;
  const repositorySecrets = createRepositorySecrets(settings.repository);
  const runner: CommandRunner = {
    specificationVersion: 'command-runner-v1',
    isolation: 'none',
    collectsReports: true,
    async run(command: CommandSpec, options: CommandRunOptions): Promise<CommandEvidence> {
      if (options.reportDir) return withReportDir(options, (inner) => runner.run(command, inner));
      const hostEnv = settings.env ?? process.env;
      const base = settings.inheritEnv
        ? Object.fromEntries(Object.entries(hostEnv).filter((entry): entry is [string, string] => entry[1] !== undefined))
        : scrubEnv(hostEnv, settings.envAllowlist ?? DEFAULT_ENV_ALLOWLIST);
      const limit = options.outputLimitBytes ?? settings.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT;
      const startedAt = clock.now();
      // Walked while the command runs (see bwrap-runner.ts).
      const secretValues = handledLater(repositorySecrets.valuesFor(options.cwd));
      // No sandbox to mount into: the checkout's dependencies appear as a link for this command only.
      const result = await withDependencyBinds(options.readOnlyBinds ?? [], 'symlink', () => runProcess({
        file: 'sh',
        args: ['-c', command.command],
        cwd: options.cwd,
        env: { ...base, ...options.env },
        timeoutMs: effectiveTimeout(command.timeoutMs, options.timeoutMs),
        outputLimitBytes: limit,
        ...(settings.killGraceMs !== undefined ? { killGraceMs: settings.killGraceMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      }));
      const secrets = [...secretsFor(hostEnv, options.env), ...(await secretValues)];
      return toEvidence(command.command, result, { startedAt, finishedAt: clock.now() }, limit, secrets);
    },
  };
  return runner;
}
