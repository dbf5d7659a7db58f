/**
 * Fixtures of the fleet tests: a private Postgres cluster per file, worker
 * processes (spawn one, collect its output, wait for its `ready` line), a
 * bounded poll (never a wall-clock assertion) and one-query reads.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { bundledChild } from './bundled-child.js';
import { cleanupTempDirs, GIT_ENV } from './git-fixtures.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

export interface ReadyProcess {
  child: ChildProcess;
  /** Every stdout line so far (and, with `stderrLines`, stderr's as `stderr: …`). */
  lines: string[];
  /** Settles when the process ends: its signal, else its exit code. */
  exited: Promise<NodeJS.Signals | number | null>;
}

export interface SpawnUntilReadyOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Every child spawned, for the suite's afterAll to kill what is left. */
  track: ChildProcess[];
  /** Sees each stdout line before the `ready` check; a throw before `ready` fails the start. */
  onLine?: (line: string) => void;
  /** Also keep stderr's lines in `lines` (a crashed worker says why there). */
  stderrLines?: boolean;
}

/**
 * Spawns `command` and resolves once it prints `ready`; rejects with its
 * stderr if it exits first.
 *
 * @example
 * ```ts
 * const worker = await spawnUntilReady(process.execPath, [BIN, 'worker', '--repo', repo], { env, track: children });
 * ```
 */
export function spawnUntilReady(command: string, args: readonly string[], options: SpawnUntilReadyOptions): Promise<ReadyProcess> {
  const child = spawn(command, args, { ...(options.cwd ? { cwd: options.cwd } : {}), ...(options.env ? { env: options.env } : {}), stdio: ['ignore', 'pipe', 'pipe'] });
  options.track.push(child);
  const lines: string[] = [];
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (options.stderrLines) for (const line of chunk.toString().split('\n')) if (line) lines.push(`stderr: ${line.slice(0, 300)}`);
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      try {
        options.onLine?.(line);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
      if (line === 'ready') resolve({ child, lines, exited });
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${String(code)}) before it was ready: ${stderr}`)));
  });
}

/**
 * Polls `probe` every `everyMs` until it returns a value. It gives up after
 * `attempts × everyMs` or four minutes of wall time, whichever is longer: a
 * ceiling for a process that hung, not a speed target (the same wait takes
 * several times longer on a machine under load, and must still pass there).
 *
 * @example
 * ```ts
 * const row = await eventually(() => findRun(tickId), 'the tick in the run history');
 * ```
 */
export async function eventually<T>(probe: () => Promise<T | null>, what: string | (() => string | Promise<string>), options: { attempts?: number; everyMs?: number } = {}): Promise<T> {
  const everyMs = options.everyMs ?? 100;
  const deadline = Date.now() + Math.max((options.attempts ?? 400) * everyMs, 240_000);
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  // `what` runs only now: the state worth seeing on a timeout (open workflows, a log tail), not queried at every poll.
  throw new Error(`timed out waiting for ${typeof what === 'string' ? what : await what()}`);
}

/**
 * A private Postgres cluster for the calling test file: started in
 * `beforeAll`; in `afterAll` the children still running are killed, the
 * cluster stopped and the temporary directories removed.
 *
 * @example
 * ```ts
 * const children: ChildProcess[] = [];
 * const cluster = usePgCluster(children);
 * it('…', async () => { const url = await cluster.createDatabase('fleet'); … });
 * ```
 */
export function usePgCluster(children: readonly ChildProcess[] = []): PgCluster {
  let started: PgCluster | undefined;
  beforeAll(async () => {
    started = await startPgCluster();
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await started?.stop();
    await cleanupTempDirs();
  });
  const cluster = (): PgCluster => {
    if (!started) throw new Error('the Postgres cluster starts in beforeAll');
    return started;
  };
  return {
    get port() {
      return cluster().port;
    },
    get dataDir() {
      return cluster().dataDir;
    },
    url: (database) => cluster().url(database),
    createDatabase: (prefix) => cluster().createDatabase(prefix),
    kill: () => cluster().kill(),
    start: () => cluster().start(),
    stop: () => cluster().stop(),
  };
}

/**
 * The rows of one query, on a connection of its own.
 *
 * @example
 * ```ts
 * const runs = await queryRows<{ tick_id: string }>(url, 'SELECT tick_id FROM loop_runtime_runs');
 * ```
 */
export async function queryRows<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A `loop-runtime worker` process wired as the CLI wires it (`test/fleet-service-child.ts`, bundled by
 * test/bundled-child.ts:
 * `<url> <repo> <executorId> <run|die-after-proposal> <clock-start>`), started until it prints `ready`, with its
 * stderr kept in `lines`.
 */
export async function startServiceWorker(args: readonly string[], track: ChildProcess[]): Promise<ReadyProcess> {
  const root = join(import.meta.dirname, '..');
  const child = await bundledChild(join(import.meta.dirname, 'fleet-service-child.ts'));
  return spawnUntilReady(process.execPath, [child, ...args], { cwd: root, env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: '' }, track, stderrLines: true });
}
