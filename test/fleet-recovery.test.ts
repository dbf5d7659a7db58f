/**
 * A tick as a durable workflow, for real: two worker processes on one
 * private Postgres. The first is killed with SIGKILL in the middle of the
 * implementer call, after triage completed; the second finds the dead
 * worker (its liveness lock is free), recovers the workflow and finishes
 * the tick from its last completed step. The backend saw triage exactly
 * once; the reservations the dead worker opened are settled, not leaked;
 * the run history has the tick once.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledChild } from './bundled-child.js';
import { eventually, spawnUntilReady } from './fleet-processes.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

const ROOT = join(import.meta.dirname, '..');
const CHILD = join(import.meta.dirname, 'fleet-worker-child.ts');

let cluster: PgCluster;
let scratch: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  cluster = await startPgCluster();
  scratch = await mkdtemp(join(tmpdir(), 'fleet-recovery-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await cluster?.stop();
  await rm(scratch, { recursive: true, force: true });
});

interface Worker {
  child: ChildProcess;
  /** Every `sweep …` line so far: what each recovery sweep handed back. */
  sweeps: string[];
}

async function startWorker(args: string[]): Promise<Worker> {
  const sweeps: string[] = [];
  const { child } = await spawnUntilReady(process.execPath, [await bundledChild(CHILD), ...args], {
    cwd: ROOT,
    track: children,
    onLine(line) {
      if (line.startsWith('sweep')) sweeps.push(line.slice('sweep '.length));
    },
  });
  return { child, sweeps };
}

const lines = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);

describe('fleet: a tick is a durable workflow', () => {
  it('resumes on another worker after kill -9 mid-implement; triage is never called twice', async () => {
    const url = await cluster.createDatabase('fleet');
    const log = join(scratch, 'backend.log');
    const first = await startWorker([url, 'worker-a', log, 'hang-in-implement', '2026-11-23T08:00:00Z', '2026-11-23T08:00Z']);
    await eventually(async () => ((await lines(log)).includes('start implement worker-a') ? true : null), 'worker-a to start implementing', { attempts: 300, everyMs: 50 });
    const second = await startWorker([url, 'worker-b', log, 'run', '2026-11-23T08:05:00Z']);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const tick = async () => (await client.query<{ status: string; executor_id: string }>(`SELECT status, executor_id FROM dbos.workflow_status WHERE workflow_uuid = 'tick:acme/demo:daily-triage:2026-11-23T08:00Z'`)).rows[0];
    try {
      // While worker-a lives (hung in a long model call), worker-b's sweeps leave its tick alone.
      await eventually(async () => (second.sweeps.length >= 3 ? true : null), 'three sweeps of worker-b', { attempts: 300, everyMs: 50 });
      expect(second.sweeps.every((line) => line === '')).toBe(true);
      expect(await tick()).toEqual({ status: 'PENDING', executor_id: 'worker-a' });
      expect((await lines(log)).filter((line) => line.endsWith('worker-b'))).toEqual([]);

      const exited = new Promise((resolve) => first.child.once('exit', resolve));
      const killedAt = Date.now();
      first.child.kill('SIGKILL');
      await exited;
      await eventually(async () => ((await lines(log)).includes('start implement worker-b') ? true : null), 'worker-b to resume the implementer', { attempts: 300, everyMs: 50 });
      process.stdout.write(`fleet: tick resumed on worker-b ${Date.now() - killedAt} ms after worker-a was killed\n`);
      expect(second.sweeps).toContain('worker-a');

      const status = await eventually(async () => {
        const row = await tick();
        return row && row.status !== 'PENDING' && row.status !== 'ENQUEUED' ? row : null;
      }, 'the tick to finish on worker-b', { attempts: 300, everyMs: 50 });
      expect(status).toEqual({ status: 'SUCCESS', executor_id: 'worker-b' });

      expect(await lines(log)).toEqual([
        'start triage worker-a',
        'done triage worker-a',
        'start implement worker-a',
        // worker-a died here; worker-b resumes after the last completed step.
        'start implement worker-b',
        'done implement worker-b',
        'start check worker-b',
        'done check worker-b',
      ]);
      // worker-b took the dead worker's loop lease back (same tick, same token) and released it at the end.
      expect((await client.query('SELECT key FROM loop_runtime_leases')).rows).toEqual([]);
      const open = await client.query(`SELECT id FROM loop_runtime_budget_entries WHERE state = 'open'`);
      expect(open.rows).toEqual([]);
      const runs = await client.query<{ tick_id: string; kind: string; verdict: string }>('SELECT tick_id, kind, verdict FROM loop_runtime_runs');
      expect(runs.rows).toEqual([{ tick_id: 'tick-tick:acme/demo:daily-triage:2026-11-23T08:00Z', kind: 'proposed', verdict: 'APPROVE' }]);
      const steps = await client.query<{ function_name: string }>(
        `SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = 'tick:acme/demo:daily-triage:2026-11-23T08:00Z' ORDER BY function_id`,
      );
      expect(steps.rows.filter((row) => row.function_name === 'backend.run')).toHaveLength(3);
    } finally {
      await client.end();
    }
  });
});
