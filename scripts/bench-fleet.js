/**
 * Fleet numbers for `npm run bench` (reported, never asserted), on a private
 * PostgreSQL 15 cluster (skipped when its binaries are missing):
 * - mock ticks per second with 1, 2 and 4 worker processes on one Postgres
 *   (daily-triage at L2: triage, implement, check; every port call a durable
 *   step; 40 loops, 3 slots each, enqueued at once by one of the workers,
 *   timed until the run history holds all 120);
 * - the time from a worker's kill -9 in the middle of a tick to the
 *   implementer running again on another worker (sweep every 200 ms).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = process.env.LOOP_RUNTIME_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const CHILD = join(root, 'scripts', 'bench-fleet-worker.js');

const asOwner = (command, args) => {
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'nobody', '--', command, ...args]] : [command, args];
  execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
};
const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function startCluster() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-fleet-pg-'));
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) chownSync(dir, 65534, 65534);
  asOwner(join(BIN, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  asOwner(join(BIN, 'pg_ctl'), ['-D', join(dir, 'data'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200`, '-l', join(dir, 'log'), '-w', 'start']);
  const { default: pg } = await import('pg');
  let databases = 0;
  return {
    async database() {
      const name = `bench_${++databases}`;
      const client = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return `postgresql://postgres@127.0.0.1:${port}/${name}`;
    },
    stop() {
      asOwner(join(BIN, 'pg_ctl'), ['-D', join(dir, 'data'), '-m', 'immediate', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function startWorker(url, name, mode, log) {
  const child = spawn(process.execPath, [CHILD, url, name, mode, log], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => line === 'ready' && resolve(child));
    child.once('exit', (code) => reject(new Error(`bench worker ${name} exited ${code}`)));
  });
}

/** Polls `probe`; false when it has not held within `limitMs`. */
async function until(probe, limitMs = 120_000) {
  const deadline = performance.now() + limitMs;
  while (performance.now() < deadline) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

async function ticksPerSecond(cluster, workers) {
  const url = await cluster.database();
  const log = join(mkdtempSync(join(tmpdir(), 'bench-fleet-')), 'backend.log');
  const children = [];
  for (let index = 1; index < workers; index += 1) children.push(await startWorker(url, `bench-${workers}-${index}`, 'run', log));
  const { default: pg } = await import('pg');
  const reader = new pg.Client({ connectionString: url });
  await reader.connect();
  const loops = 40;
  // The last worker enqueues every tick as soon as it serves: the clock starts when it begins.
  const enqueuer = spawn(process.execPath, [CHILD, url, `bench-${workers}-0`, 'run', log, String(loops)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(enqueuer);
  const started = await new Promise((resolve) => createInterface({ input: enqueuer.stdout }).on('line', (line) => line === 'enqueuing' && resolve(performance.now())));
  await until(async () => Number((await reader.query(`SELECT count(*) FROM loop_runtime_runs`)).rows[0].count) >= 3 * loops);
  const seconds = (performance.now() - started) / 1000;
  await reader.end();
  for (const child of children) child.kill('SIGKILL');
  return Math.round(((3 * loops) / seconds) * 10) / 10;
}

async function deathToResumption(cluster) {
  const url = await cluster.database();
  const log = join(mkdtempSync(join(tmpdir(), 'bench-fleet-')), 'backend.log');
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
  const doomed = spawn(process.execPath, [CHILD, url, 'doomed', 'hang', log, '1'], { stdio: ['ignore', 'ignore', 'inherit'] });
  await until(async () => lines().includes('start implement doomed'), 30_000);
  const survivor = await startWorker(url, 'survivor', 'run', log);
  // The survivor's own session must be older than its reconnect grace (2 s) before it judges anyone dead.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const killed = performance.now();
  doomed.kill('SIGKILL');
  const resumed = await until(async () => lines().includes('start implement survivor'), 30_000);
  if (process.env.DEBUG_FLEET) console.error(lines());
  const ms = resumed ? Math.round(performance.now() - killed) : null;
  survivor.kill('SIGKILL');
  return ms;
}

/** Ticks per second by worker count, and the death-to-resumption time; null without PostgreSQL binaries. */
export async function benchFleet() {
  if (!existsSync(join(BIN, 'initdb')) || !existsSync(join(root, 'dist', 'src', 'fleet', 'index.js'))) return null;
  const cluster = await startCluster();
  try {
    const perWorkers = {};
    for (const workers of [1, 2, 4]) perWorkers[workers] = await ticksPerSecond(cluster, workers);
    return { perWorkers, resumeMs: await deathToResumption(cluster) };
  } finally {
    cluster.stop();
  }
}

/** `node scripts/bench-fleet.js resume`: the death-to-resumption time alone (DEBUG_FLEET=1 prints the log and sweeps). */
async function resumeOnly() {
  const cluster = await startCluster();
  try {
    return await deathToResumption(cluster);
  } finally {
    cluster.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(process.argv[2] === 'resume' ? await resumeOnly() : await benchFleet()));
