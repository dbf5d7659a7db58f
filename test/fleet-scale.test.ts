/**
 * The fleet at the issue's scale, for real: four `loop-runtime worker`
 * processes (the built CLI) on one private Postgres serve 200 repositories
 * (one loop each, mock backend, L1), stepped through two schedule slots by
 * the clock file, the second slot as soon as the first is enqueued. From the fleet's run
 * history: every loop ticked exactly once per slot. From DBOS's own record
 * of when each tick ran (wall-clock dispatch and completion): no loop ever
 * had two ticks at once. No loop lease is left behind. Needs `dist/`.
 *
 * The pollers reach a loop's second slot only after its first tick is done
 * here (the first slot's 200 ticks run at once and finish within a few
 * seconds), so the per-loop exclusivity of ticks queued together is shown by
 * test/fleet-chaos.test.ts, which queues both slots of every loop at once.
 *
 * The repositories are one scaffolded repository copied 200 times (a copy
 * has no `origin`, so its scope is its own path: 200 loops).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, makeLoopRepo } from './e2e-fixtures.js';
import { cleanupTempDirs, GIT_ENV } from './git-fixtures.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';
import { waitForProgress } from './wait-for.js';
import { seededRandom } from './seeded-random.js';

const execFileAsync = promisify(execFile);
const LOOPS = Number(process.env.FLEET_SCALE_LOOPS ?? 200);
const WORKERS = 4;
const SLOTS = ['2026-11-23T08:00:00.000Z', '2026-11-26T08:00:00.000Z'];

let cluster: PgCluster;
let scratch: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  cluster = await startPgCluster();
  scratch = await mkdtemp(join(tmpdir(), 'fleet-scale-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await cluster?.stop();
  await rm(scratch, { recursive: true, force: true });
  await cleanupTempDirs();
});

function startWorker(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'worker', ...args], { env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => line === 'ready' && resolve(child));
    child.once('exit', (code) => reject(new Error(`worker exited (${String(code)}) before it was ready: ${stderr}`)));
  });
}

/** A seeded Fisher-Yates shuffle (mulberry32), the same order on every run. */
function shuffle<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

describe('fleet at scale', () => {
  it(`${WORKERS} workers, ${LOOPS} loops, ${SLOTS.length} slots: every loop ticks once per slot, never two ticks of a loop at once`, async () => {
    const url = await cluster.createDatabase('scale');
    const template = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { backend: 'mock', level: 'L1' });
    const repos: string[] = [];
    for (let index = 0; index < LOOPS; index += 1) {
      const copy = join(scratch, `repo-${index}`);
      // cp(1), not fs.cp: node's recursive copy took ~7 s of CPU (and a minute under load) for the 200 copies; cp ~1 s.
      await execFileAsync('cp', ['-a', template, copy]);
      repos.push(copy);
    }
    // Two workers list the repositories in order, two in a seeded shuffle: pollers reach the loops in different orders.
    const inOrder = join(scratch, 'repos');
    const shuffled = join(scratch, 'repos-shuffled');
    const clockFile = join(scratch, 'now');
    await writeFile(inOrder, `${repos.join('\n')}\n`);
    await writeFile(shuffled, `${shuffle(repos, 20261123).join('\n')}\n`);
    await writeFile(clockFile, SLOTS[0]!);
    const env = { LOOP_RUNTIME_DATABASE_URL: url };
    const client = new pg.Client({ connectionString: url });
    // Every worker enqueues every due loop of the slot before it says ready: the first slot is all queued by then.
    await Promise.all(Array.from({ length: WORKERS }, (_, index) => startWorker(['--repos-file', index < WORKERS / 2 ? inOrder : shuffled, '--clock-file', clockFile, '--poll', '0.5', '--executor-id', `worker-${index}`], env)));
    await client.connect();
    try {
      // A tick is done when its workflow is: the run history has its row a few steps before the workflow ends (the
      // tick session's finish, the lease's release), and the workers are killed as soon as every tick is done.
      const countOf = async (sql: string) => Number((await client.query<{ count: string }>(sql)).rows[0]!.count);
      const recorded = async () => Math.min(await countOf('SELECT count(*) FROM loop_runtime_runs'), await countOf(`SELECT count(*) FROM dbos.workflow_status WHERE status = 'SUCCESS'`));
      const until = (count: number) => waitForProgress(recorded, count, { explain: (done) => `${done} of ${count} ticks recorded and finished` });
      // Every first-slot tick was enqueued before its worker said ready, and they are queued or running now: the clock
      // moves on at once, and the second slot is enqueued on top of the first.
      await writeFile(clockFile, SLOTS[1]!);
      await until(LOOPS * SLOTS.length);
      for (const child of children) child.kill('SIGKILL');

      // The message comes along so a failed tick says why.
      const runs = (await client.query<{ scope: string; tick_id: string; kind: string; message: string | null }>(`SELECT scope, tick_id, kind, record->>'message' AS message FROM loop_runtime_runs`)).rows;
      expect(runs).toHaveLength(LOOPS * SLOTS.length);
      expect(new Set(runs.map((row) => row.scope)).size).toBe(LOOPS);
      const slotOf = (tickId: string) => tickId.slice(tickId.lastIndexOf(':daily-triage:') + ':daily-triage:'.length);
      expect(new Set(runs.map((row) => `${row.scope}|${slotOf(row.tick_id)}`)).size).toBe(LOOPS * SLOTS.length);
      expect(new Set(runs.map((row) => slotOf(row.tick_id)))).toEqual(new Set(SLOTS));
      expect(runs.filter((row) => row.kind !== 'report')).toEqual([]);

      // When each tick ran, by the workers' wall clocks as DBOS recorded them: per loop, one after the other.
      const workflows = (
        await client.query<{ workflow_uuid: string; status: string; queue_partition_key: string; started_at_epoch_ms: string; updated_at: string }>(
          'SELECT workflow_uuid, status, queue_partition_key, started_at_epoch_ms, updated_at FROM dbos.workflow_status',
        )
      ).rows;
      expect(workflows).toHaveLength(LOOPS * SLOTS.length);
      expect(workflows.filter((row) => row.status !== 'SUCCESS')).toEqual([]);
      const byLoop = new Map<string, Array<{ started: number; finished: number }>>();
      for (const row of workflows) {
        const ran = { started: Number(row.started_at_epoch_ms), finished: Number(row.updated_at) };
        byLoop.set(row.queue_partition_key, [...(byLoop.get(row.queue_partition_key) ?? []), ran]);
      }
      expect(byLoop.size).toBe(LOOPS);
      for (const [loop, ticks] of byLoop) {
        ticks.sort((a, b) => a.started - b.started);
        expect(ticks, loop).toHaveLength(SLOTS.length);
        for (let index = 1; index < ticks.length; index += 1) expect(ticks[index]!.started, loop).toBeGreaterThanOrEqual(ticks[index - 1]!.finished);
      }
      expect((await client.query('SELECT key FROM loop_runtime_leases')).rows).toEqual([]);
      const perWorker = (await client.query<{ executor_id: string; count: string }>('SELECT executor_id, count(*) FROM dbos.workflow_status GROUP BY 1 ORDER BY 1')).rows;
      process.stdout.write(`fleet scale: ${LOOPS * SLOTS.length} ticks; per worker ${perWorker.map((row) => `${row.executor_id}=${row.count}`).join(' ')}\n`);
    } finally {
      await client.end();
    }
  });
});
