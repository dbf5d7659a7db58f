/**
 * `loop-runtime worker`: a long-lived fleet worker. Serves every repository
 * given (`--repo`, repeatable, and/or `--repos-file` with one path a line),
 * enqueues their due loops' ticks, and runs ticks from the fleet's queue —
 * one tick per loop fleet-wide. Needs LOOP_RUNTIME_DATABASE_URL. SIGTERM,
 * SIGINT or SIGHUP: takes no new tick, lets running ones finish (`--drain`),
 * then interrupts what still runs so it settles like Ctrl-C (`--settle`), and
 * exits 0 — or 128 + n when a tick had to be interrupted. A second signal
 * exits at once (another worker's sweep resumes the tick).
 */
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { ExitCode, exitCodeForSignal, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { loadLockLibrary } from '../../adapters/fs/lock-library.js';
import { stopped } from '../stop-signals.js';

function seconds(value: unknown, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0.05 || parsed > 86_400) throw new LoopRuntimeError('USAGE', `${flag} ${String(value)} is not a number of seconds.`, { fix: `pass seconds from 0.05 to 86400, e.g. ${flag} 30.` });
  return parsed * 1000;
}

/** Every `--repo` and every line of `--repos-file` (blank lines and # comments skipped), absolute, once each. */
async function repositories({ options, io }: CommandContext): Promise<string[]> {
  const given = Array.isArray(options.repo) ? options.repo.map(String) : typeof options.repo === 'string' ? [options.repo] : [];
  if (typeof options.reposFile === 'string') {
    const file = resolve(io.cwd, options.reposFile);
    const text = await readFile(file, 'utf8').catch((cause: unknown) => {
      throw new LoopRuntimeError('USAGE', `--repos-file ${file} cannot be read.`, { cause, fix: 'pass a file with one repository path per line.' });
    });
    given.push(...text.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#')));
  }
  if (given.length === 0) throw new LoopRuntimeError('USAGE', 'worker needs the repositories to serve.', { fix: 'pass --repo <path> (repeatable) or --repos-file <file>.' });
  return [...new Set(given.map((path) => resolve(io.cwd, path)))];
}

export async function workerCommand(context: CommandContext): Promise<CommandOutput> {
  const { options, io } = context;
  const databaseUrl = io.env.LOOP_RUNTIME_DATABASE_URL;
  if (!databaseUrl) {
    throw new LoopRuntimeError('CONFIG_INVALID', 'A worker keeps its queue and every shared store in Postgres, and LOOP_RUNTIME_DATABASE_URL is not set.', {
      fix: 'export LOOP_RUNTIME_DATABASE_URL=postgresql://user@host:5432/loops (see README: "A fleet of workers").',
    });
  }
  const repos = await repositories(context);
  const { loadFleetModule } = await import('../../adapters/postgres/fleet-packages.js');
  const [{ startFleetService }, { clockFor }] = await Promise.all([
    loadFleetModule(() => import('../../fleet/fleet-service.js'), 'a worker runs on Postgres'),
    import('../../composition/host-adapters.js'),
  ]);
  const executorId = typeof options.executorId === 'string' ? options.executorId : `${hostname()}-${process.pid}`;
  // proper-lockfile loads on the first lock and brings signal-exit, whose listeners must come before the graceful
  // stop's below (src/adapters/fs/lock-library.ts). Loaded before the work starts, no lock taken meanwhile can
  // put them in the wrong order, and the stop is registered in the same turn as the lines announcing readiness.
  await loadLockLibrary();
  const service = await startFleetService({
    repositories: repos,
    databaseUrl,
    executorId,
    env: io.env,
    clock: clockFor(io.clock, typeof options.clockFile === 'string' ? { clockFile: resolve(io.cwd, options.clockFile) } : {}),
    pollMs: seconds(options.poll, '--poll', 30),
    allowUnsandboxed: Boolean(options.allowUnsandboxed),
    report: (line) => io.announce(line),
  });
  io.announce(`worker ${executorId}: serving ${service.repositories.length} repositories from ${service.worker.database}`);
  // The one stop path (stop-signals.ts): SIGTERM, SIGINT and SIGHUP alike; a second signal exits at once.
  const stop = io.stopSignal();
  io.announce('ready');
  const signal = await stopped(stop);
  const drainMs = seconds(options.drain, '--drain', 600);
  const settleMs = seconds(options.settle, '--settle', 60);
  io.announce(`worker ${executorId}: ${signal}: taking no new tick; running ticks have ${drainMs / 1000} s to finish, then ${settleMs / 1000} s to settle`);
  const { interrupted } = await service.stop({ drainMs, settleMs, signal });
  const exitCode = interrupted > 0 ? exitCodeForSignal(signal) : ExitCode.ok;
  const text = `worker ${executorId} stopped (${signal})${interrupted > 0 ? `: ${interrupted} tick(s) interrupted past the drain, settled and recorded` : ''}`;
  return { exitCode, json: { stopped: signal, executorId, interrupted }, text };
}
