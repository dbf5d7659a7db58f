/**
 * Lease fencing through the real wiring on a private Postgres: two runs of one
 * loop share the fleet store. Run A (the library's `runtime.run`, what the
 * CLI's `run` calls) is held inside its triage call — a stalled process —
 * while worker B, whose clock is past A's stale time, takes the loop's lease
 * over. When A wakes, its next shared write is refused and its tick ends
 * `halted` / `lease-lost`: no run-log line, no state record, B's lease left in
 * place. The allowed twin: B comes within A's stale time, is refused, and A
 * completes as always. Barriers, not timing: B acts only once A is provably
 * inside its model call.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockBackend } from '../backends/mock/index.js';
import type { AgentBackend, AgentRequest, AgentResult } from '../src/core/ports/index.js';
import { PostgresDatabase, PostgresLoopLeases } from '../src/adapters/postgres/index.js';
import { openRuntime } from '../src/composition/runtime.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { makeLoopRepo } from './e2e-fixtures.js';
import { cleanupTempDirs } from './git-fixtures.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster();
});
afterAll(async () => {
  await cluster?.stop();
  await cleanupTempDirs();
});

/** A's model: the first call stays open until the test lets it go. */
class StalledBackend implements AgentBackend {
  readonly specificationVersion = 'agent-backend-v2' as const;
  readonly name = 'mock';
  readonly roles: string[] = [];
  private readonly inner = new MockBackend();
  private wake: () => void = () => undefined;
  private readonly woken = new Promise<void>((resolve) => (this.wake = resolve));
  private entered: () => void = () => undefined;
  readonly inside = new Promise<void>((resolve) => (this.entered = resolve));
  async run(request: AgentRequest): Promise<AgentResult> {
    this.roles.push(request.role);
    this.entered();
    await this.woken;
    return this.inner.run(request);
  }
  resume(): void {
    this.wake();
  }
}

const START = '2026-11-23T08:00:00Z';

async function scenario(name: string, takeOverAfterMs: number) {
  const url = await cluster.createDatabase(name);
  const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { backend: 'mock', level: 'L1', store: { url: 'env:FLEET_DATABASE', scope: 'acme/demo' } });
  const backend = new StalledBackend();
  const opened = await openRuntime({ cwd: repo, env: { FLEET_DATABASE: url }, clock: new FixedClock(START, 1000), backend });
  if (!opened.ok) throw new Error(JSON.stringify(opened.issues));
  const run = opened.runtime.run('daily-triage');
  await backend.inside;
  // Worker B: its own connection and a clock `takeOverAfterMs` past A's start.
  const database = await PostgresDatabase.open({ url, maxConnections: 1 });
  const clock = new FixedClock(Date.parse(START) + takeOverAfterMs);
  const taken = await new PostgresLoopLeases({ database, clock, scope: 'acme/demo', staleMs: 60_000 }).acquire({ patternId: 'daily-triage', holder: 'worker-b', tickId: 'tick-b' });
  backend.resume();
  const summary = await run;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const query = async <T extends pg.QueryResultRow>(sql: string) => (await client.query<T>(sql)).rows;
  const runLog = await readFile(join(repo, 'loop-run-log.md'), 'utf8').catch(() => '');
  return {
    summary,
    taken,
    backend,
    runLog,
    query,
    async close() {
      if (taken.ok) await taken.release();
      await client.end();
      await database.close();
    },
  };
}

describe('lease fencing: a run whose lease was taken over stops before its next shared write', () => {
  it('A stalled past its stale time, B took the lease: A ends lease-lost, writes nothing more, and leaves B its lease', async () => {
    const day = 24 * 60 * 60_000;
    const result = await scenario('fencing_lost', day);
    try {
      expect(result.taken.ok).toBe(true);
      expect(result.summary.ok).toBe(true);
      const tick = result.summary.ok ? result.summary.value.ticks[0]! : null;
      expect(tick).toMatchObject({ kind: 'halted', reason: 'lease-lost' });
      expect(result.summary.ok && result.summary.value.exitCode).toBe(5);
      expect(result.backend.roles).toEqual(['triage']);
      // No run-log line and no state record from A after the loss.
      expect(result.runLog).not.toContain(tick!.tickId);
      // B still holds the loop: A's release deleted only its own row.
      expect(await result.query<{ holder: string }>('SELECT holder FROM loop_runtime_leases')).toEqual([{ holder: 'worker-b' }]);
      // A's spend on the call it was in is settled (it happened); no reservation is left open, none was opened after.
      const entries = await result.query<{ phase: string; state: string }>('SELECT phase, state FROM loop_runtime_budget_entries ORDER BY seq');
      expect(entries).toEqual([{ phase: 'triage', state: 'settled' }]);
      // The tick's own outcome is the run history's record of it.
      expect(await result.query<{ kind: string; reason: string }>(`SELECT kind, record->>'reason' AS reason FROM loop_runtime_runs`)).toEqual([{ kind: 'halted', reason: 'lease-lost' }]);
    } finally {
      await result.close();
    }
  });

  it('the allowed twin: B comes within A\'s stale time and is refused; A keeps the lease and completes', async () => {
    const result = await scenario('fencing_kept', 60_000);
    try {
      expect(result.taken).toMatchObject({ ok: false });
      expect(result.summary.ok).toBe(true);
      const tick = result.summary.ok ? result.summary.value.ticks[0]! : null;
      expect(tick?.kind).toBe('report');
      expect(result.runLog).toContain(tick!.tickId);
      expect(await result.query('SELECT holder FROM loop_runtime_leases')).toEqual([]);
      expect(await result.query<{ kind: string }>('SELECT kind FROM loop_runtime_runs')).toEqual([{ kind: 'report' }]);
    } finally {
      await result.close();
    }
  });
});
