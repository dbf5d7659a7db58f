/**
 * The one I/O piece both headless agent CLIs here share: spawn the binary
 * detached (it leads its own process group), feed the prompt on stdin, hand
 * every stdout line to the caller as it arrives, and stop the whole group on
 * budget, max turns, timeout or abort. Exit code, signal and a stderr tail
 * come back as data; a missing binary is `notFound`, never a throw.
 */
import { execa } from 'execa';
import readline from 'node:readline';
import type { AbortSignalLike } from '../../src/core/ports/index.js';

export type StopReason = 'budget' | 'max-turns' | 'timeout' | 'aborted';

export interface JsonLinesRunOptions {
  binary: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  input: string;
  timeoutMs: number;
  /** Time between SIGTERM and SIGKILL for timeout/abort. Budget and max-turns stops are SIGKILL at once. */
  killGraceMs: number;
  signal?: AbortSignalLike;
  /** Called for every stdout line; call `stop` to end the run. */
  onLine(line: string, stop: (why: StopReason) => void): void;
}

export interface JsonLinesRunOutcome {
  exitCode: number | null;
  signal: string | null;
  stoppedFor?: StopReason;
  stderrTail: string;
  notFound: boolean;
}

const STDERR_TAIL = 4000;

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
 * @example
 * ```ts
 * const outcome = await runJsonLines({ binary: 'opencode', args, cwd, env, input, timeoutMs: 60_000, killGraceMs: 500,
 *   onLine: (line, stop) => { if (tooExpensive(line)) stop('budget'); } });
 * ```
 */
export async function runJsonLines(options: JsonLinesRunOptions): Promise<JsonLinesRunOutcome> {
  let stoppedFor: StopReason | undefined;
  let stderr = '';
  const child = execa(options.binary, options.args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    input: options.input,
    reject: false,
    buffer: false,
    detached: true,
    cleanup: true,
    stripFinalNewline: false,
  });
  const stop = (why: StopReason) => {
    if (stoppedFor || child.pid === undefined) return;
    stoppedFor = why;
    const pid = child.pid;
    // Spending stops now: budget and turn limits do not wait for a graceful exit.
    if (why === 'budget' || why === 'max-turns') return signalGroup(pid, 'SIGKILL');
    signalGroup(pid, 'SIGTERM');
    setTimeout(() => signalGroup(pid, 'SIGKILL'), options.killGraceMs).unref();
  };
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = () => stop('aborted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  const lines = child.stdout ? readline.createInterface({ input: child.stdout, crlfDelay: Infinity }) : null;
  const reading = (async () => {
    if (!lines) return;
    for await (const line of lines) {
      if (stoppedFor === 'budget' || stoppedFor === 'max-turns') continue;
      options.onLine(line, stop);
    }
  })();
  const outcome = await child;
  await reading.catch(() => undefined);
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);
  // The group may still hold children (tool subprocesses) after the leader exited.
  if (stoppedFor && child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
  const code = (outcome as { code?: string }).code;
  const notFound = code === 'ENOENT' || (outcome.failed && outcome.exitCode === undefined && /ENOENT/.test(String(outcome.message)));
  return {
    exitCode: outcome.exitCode ?? null,
    signal: outcome.signal ?? null,
    ...(stoppedFor ? { stoppedFor } : {}),
    stderrTail: stderr.trim(),
    notFound,
  };
}
