/**
 * A manual `run` and a fleet worker's tick of the same loop never overlap:
 * both hold the loop's lease in the fleet store. Barriers, not timing — each
 * side's model call stays open until the test lets it go, so the other side
 * is started while the first provably holds the lease:
 *
 * - the manual run is inside its model call → the worker's tick of that loop
 *   ends `skipped-overlap` without calling its model or touching a ledger;
 * - the worker's tick is inside its model call → the manual run is refused
 *   with LEASE_HELD naming the worker, before its model is called.
 *
 * The manual run is the library's `runtime.run` (what the CLI's `run` calls)
 * over a repository whose LOOP.md points at the fleet store with the
 * worker's scope; the worker is a real process (test/fleet-worker-child.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockBackend } from '../backends/mock/index.js';
import type { AgentBackend, AgentRequest, AgentResult } from '../src/core/ports/index.js';
import { openRuntime } from '../src/composition/runtime.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { makeLoopRepo } from './e2e-fixtures.js';
import { cleanupTempDirs } from './git-fixtures.js';
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
  scratch = await mkdtemp(join(tmpdir(), 'fleet-lease-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await cluster?.stop();
  await rm(scratch, { recursive: true, force: true });
  await cleanupTempDirs();
});

interface Worker {
  child: ChildProcess;
  result: Promise<{ kind: string; holder?: string }>;
}

async function startWorker(args: string[]): Promise<Worker> {
  let settle: (value: { kind: string; holder?: string }) => void = () => undefined;
  const result = new Promise<{ kind: string; holder?: string }>((resolve) => (settle = resolve));
  const { child } = await spawnUntilReady(process.execPath, [await bundledChild(CHILD), ...args], {
    cwd: ROOT,
    track: children,
    onLine(line) {
      if (line.startsWith('result ')) settle(JSON.parse(line.slice('result '.length)) as { kind: string; holder?: string });
      if (line.startsWith('result-error ')) throw new Error(line);
    },
  });
  return { child, result };
}

async function stopWorker(worker: Worker): Promise<void> {
  const exited = new Promise((resolve) => worker.child.once('exit', resolve));
  worker.child.kill('SIGTERM');
  await exited;
}

const lines = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);

/** The manual run's model: records its calls and, while `hold` is set, keeps each call open until released. */
class GatedBackend implements AgentBackend {
  readonly specificationVersion = 'agent-backend-v2' as const;
  readonly name = 'mock';
  readonly roles: string[] = [];
  private readonly inner = new MockBackend();
  private release: () => void = () => undefined;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));
  private entered: () => void = () => undefined;
  /** Settles when the first call is inside the backend (the run holds its lease by then). */
  readonly inside = new Promise<void>((resolve) => (this.entered = resolve));
  constructor(private readonly hold: boolean) {}
  async run(request: AgentRequest): Promise<AgentResult> {
    this.roles.push(request.role);
    this.entered();
    if (this.hold) await this.released;
    return this.inner.run(request);
  }
  open(): void {
    this.release();
  }
}

async function manualRun(repo: string, url: string, backend: AgentBackend) {
  const opened = await openRuntime({ cwd: repo, env: { FLEET_DATABASE: url }, clock: new FixedClock('2026-11-23T08:00:00Z', 1000), backend });
  if (!opened.ok) throw new Error(JSON.stringify(opened.issues));
  return opened.runtime.run('daily-triage');
}

describe('fleet: a manual run and a worker tick of one loop never overlap', () => {
  it('the manual run holds the lease: the worker tick ends skipped-overlap and calls no model', async () => {
    const url = await cluster.createDatabase('lease_manual_first');
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { backend: 'mock', level: 'L1', store: { url: 'env:FLEET_DATABASE', scope: 'acme/demo' } });
    const manualBackend = new GatedBackend(true);
    const manual = manualRun(repo, url, manualBackend);
    await manualBackend.inside;

    const log = join(scratch, 'manual-first.log');
    const worker = await startWorker([url, 'worker-a', log, 'run', '2026-11-23T08:00:00Z', '2026-11-23T08:00Z']);
    const result = await worker.result;
    expect(result).toMatchObject({ kind: 'skipped-overlap', workflowId: 'tick:acme/demo:daily-triage:2026-11-23T08:00Z' });
    expect(result.holder).toMatch(/:\d+$/);
    // Not one model call, not one ledger entry, not one history row from the worker.
    expect(await lines(log)).toEqual([]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query(`SELECT function_name FROM dbos.operation_outputs`)).rows).toEqual([{ function_name: 'loopLease.acquire' }]);
      // The only reservation is the manual run's own (it is inside its model call).
      const reservations = (await client.query<{ tick_id: string }>(`SELECT tick_id FROM loop_runtime_budget_entries`)).rows;
      expect(reservations.filter((row) => row.tick_id.startsWith('tick-tick:'))).toEqual([]);
      expect(reservations).toHaveLength(1);

      manualBackend.open();
      const summary = await manual;
      expect(summary.ok).toBe(true);
      const ticks = summary.ok ? summary.value.ticks : [];
      expect(ticks.map((tick) => tick.kind)).toEqual(['report']);
      expect((await client.query<{ tick_id: string }>('SELECT tick_id FROM loop_runtime_runs')).rows).toEqual([{ tick_id: ticks[0]!.tickId }]);
      expect((await client.query('SELECT key FROM loop_runtime_leases')).rows).toEqual([]);
    } finally {
      await client.end();
      await stopWorker(worker);
    }
  });

  it('the worker tick holds the lease: the manual run is refused (LEASE_HELD) before its model is called', async () => {
    const url = await cluster.createDatabase('lease_worker_first');
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { backend: 'mock', level: 'L1', store: { url: 'env:FLEET_DATABASE', scope: 'acme/demo' } });
    const log = join(scratch, 'worker-first.log');
    const worker = await startWorker([url, 'worker-b', log, 'wait-for-gate', '2026-11-23T08:00:00Z', '2026-11-23T08:00Z']);
    await eventually(async () => ((await lines(log)).includes('start triage worker-b') ? true : null), 'the worker tick to be inside its model call', { everyMs: 25 });

    const manualBackend = new GatedBackend(false);
    await expect(manualRun(repo, url, manualBackend)).rejects.toMatchObject({ code: 'LEASE_HELD', message: expect.stringContaining('fleet worker worker-b') });
    expect(manualBackend.roles).toEqual([]);

    await writeFile(`${log}.gate`, '');
    const result = await worker.result;
    expect(result.kind).toBe('proposed');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // Released at the end of the tick: the loop is free for the next run.
      expect((await client.query('SELECT key FROM loop_runtime_leases')).rows).toEqual([]);
      const after = await manualRun(repo, url, manualBackend);
      expect(after.ok && after.value.ticks.map((tick) => tick.kind)).toEqual(['report']);
      expect(manualBackend.roles.length).toBeGreaterThan(0);
    } finally {
      await client.end();
      await stopWorker(worker);
    }
  });
});
