/**
 * Item leases, loop leases and the attempt ledger of the fleet store against
 * their conformance suites on a real private Postgres (a second OS process
 * included), plus the run history.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAttemptLedger, PostgresDatabase, PostgresItemLeases, PostgresLoopLeases, PostgresRunHistory } from '../../src/adapters/postgres/index.js';
import type { TickResult } from '../../src/core/engine/tick-result.js';
import { describeAttemptLedgerConformance, describeItemLeasesConformance, describeLoopLeasesConformance } from '../../src/testing/conformance/index.js';
import { FixedClock } from '../../src/testing/fixed-clock.js';
import { bundledChild } from '../bundled-child.js';
import { startPgCluster, type PgCluster } from '../pg-cluster.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CHILD = join(import.meta.dirname, 'postgres-lease-child.ts');

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster();
});
afterAll(async () => cluster?.stop());

describeAttemptLedgerConformance('PostgresAttemptLedger', async () => {
  const url = await cluster.createDatabase('attempts');
  const opened: PostgresDatabase[] = [];
  const open = async () => {
    const database = await PostgresDatabase.open({ url });
    opened.push(database);
    return new PostgresAttemptLedger({ database, scope: 'acme/demo' });
  };
  return { ledger: await open(), second: open, reopen: open, cleanup: async () => void (await Promise.all(opened.map((database) => database.close()))) };
});

describeItemLeasesConformance('PostgresItemLeases', {
  async create({ staleMs }) {
    const url = await cluster.createDatabase('items');
    const clock = new FixedClock('2026-11-23T08:00:00Z');
    const database = await PostgresDatabase.open({ url });
    return {
      participant: () => new PostgresItemLeases({ database, clock, scope: 'acme/demo', staleMs }),
      advance: (ms) => clock.advance(ms),
      async acquireInOtherProcess(request) {
        const result = await execa(process.execPath, [await bundledChild(CHILD), url, String(clock.now()), request.itemKey, request.patternId, request.tickId], { cwd: ROOT, reject: false, timeout: 240_000 });
        if (result.exitCode !== 0) throw new Error(`lease child failed (exit ${String(result.exitCode)}): ${String(result.stderr)}`);
        return JSON.parse(String(result.stdout).trim().split('\n').pop() ?? '{}') as { ok: boolean; holder?: string };
      },
      dispose: () => database.close(),
    };
  },
});

describeLoopLeasesConformance('PostgresLoopLeases', {
  async create({ staleMs }) {
    const url = await cluster.createDatabase('loop_fences');
    const clock = new FixedClock('2026-11-23T08:00:00Z');
    // Each holder on its own connection pool, as separate workers are.
    const databases = new Map<string, PostgresDatabase>();
    const leasesOf = async (holder: string) => {
      let database = databases.get(holder);
      if (!database) databases.set(holder, (database = await PostgresDatabase.open({ url, maxConnections: 1 })));
      return new PostgresLoopLeases({ database, clock, scope: 'acme/demo', staleMs });
    };
    return {
      async acquire(request) {
        const taken = await (await leasesOf(request.holder)).acquire(request);
        return taken.ok ? { ok: true, lease: taken } : { ok: false };
      },
      advance: (ms) => clock.advance(ms),
      dispose: async () => void (await Promise.all([...databases.values()].map((database) => database.close()))),
    };
  },
});

describe('PostgresLoopLeases', () => {
  it('gives exactly one of many racing workers the loop, and an expired lease to the next', async () => {
    const url = await cluster.createDatabase('loops');
    const clock = new FixedClock('2026-11-23T08:00:00Z');
    const databases = await Promise.all(Array.from({ length: 6 }, () => PostgresDatabase.open({ url, maxConnections: 1 })));
    try {
      const workers = databases.map((database) => new PostgresLoopLeases({ database, clock, scope: 'acme/demo', staleMs: 60_000 }));
      const results = await Promise.all(workers.map((leases, index) => leases.acquire({ patternId: 'daily-triage', holder: `worker-${index}`, tickId: `t${index}` })));
      const winners = results.filter((result) => result.ok);
      expect(winners).toHaveLength(1);
      const winner = winners[0]!;
      clock.advance(50_000);
      expect(winner.ok && (await winner.refresh())).toBe(true);
      clock.advance(50_000);
      // Refreshed 50 s ago: still held.
      expect((await workers[0]!.acquire({ patternId: 'daily-triage', holder: 'late', tickId: 'x' })).ok).toBe(false);
      clock.advance(20_000);
      const taken = await workers[1]!.acquire({ patternId: 'daily-triage', holder: 'worker-next', tickId: 't9' });
      expect(taken.ok).toBe(true);
      // The old holder has lost it: its refresh says so and its release frees nothing.
      expect(winner.ok && (await winner.refresh())).toBe(false);
      if (winner.ok) await winner.release();
      expect(await workers[2]!.acquire({ patternId: 'daily-triage', holder: 'third', tickId: 't10' })).toMatchObject({ ok: false, holder: 'worker-next' });
      // Other loops are independent.
      expect((await workers[2]!.acquire({ patternId: 'ci-sweeper', holder: 'third', tickId: 't11' })).ok).toBe(true);
    } finally {
      await Promise.all(databases.map((database) => database.close()));
    }
  });
});

describe('PostgresLoopLeases with the holder\'s own token (a fleet tick, resumed on another worker)', () => {
  it('is taken again by its token however fresh; any other taker is refused until it is released', async () => {
    const url = await cluster.createDatabase('loop_tokens');
    const clock = new FixedClock('2026-11-23T08:00:00Z');
    const first = await PostgresDatabase.open({ url, maxConnections: 1 });
    const second = await PostgresDatabase.open({ url, maxConnections: 1 });
    try {
      const leases = (database: PostgresDatabase) => new PostgresLoopLeases({ database, clock, scope: 'acme/demo', staleMs: 60_000 });
      const token = 'tick:acme/demo:daily-triage:2026-11-23T08:00Z';
      const held = await leases(first).acquire({ patternId: 'daily-triage', holder: 'fleet worker a', tickId: 't1', token });
      expect(held.ok).toBe(true);
      clock.advance(1_000);
      // The worker holding it died; the one resuming its tick comes back with the same token: taken, though fresh.
      const again = await leases(second).acquire({ patternId: 'daily-triage', holder: 'fleet worker b', tickId: 't1', token });
      expect(again.ok).toBe(true);
      // Fenced: the first execution (a worker that was only stalled, not dead) has lost it; the resumed one holds it.
      expect(held.ok && again.ok && again.fence > held.fence).toBe(true);
      expect(held.ok && (await held.stillHeld())).toBe(false);
      expect(held.ok && (await held.refresh())).toBe(false);
      expect(again.ok && (await again.stillHeld())).toBe(true);
      // A manual run (its own random token) is refused, and told who holds it now.
      expect(await leases(first).acquire({ patternId: 'daily-triage', holder: 'host:42', tickId: 'manual' })).toMatchObject({ ok: false, holder: 'fleet worker b' });
      if (again.ok) await again.release();
      expect((await leases(second).acquire({ patternId: 'daily-triage', holder: 'host:42', tickId: 'manual' })).ok).toBe(true);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

describe('PostgresRunHistory', () => {
  it('keeps one row per tick with phases, verdict, commit and pull request, newest first', async () => {
    const database = await PostgresDatabase.open({ url: await cluster.createDatabase('runs') });
    try {
      const history = new PostgresRunHistory({ database, scope: 'acme/demo' });
      const base = { patternId: 'daily-triage', level: 'L2', tokens: 1200, budget: { spentToday: 1200, dailyTokenCap: 100_000 }, steps: [{ phase: 'triage' as const, tokens: 1200, note: 'one item' }] };
      const noop: TickResult = { ...base, tickId: 't1', startedAt: 1_000, finishedAt: 2_000, kind: 'noop', summary: 'nothing to do' };
      const failed: TickResult = { ...base, tickId: 't2', startedAt: 3_000, finishedAt: 4_000, kind: 'failed', phase: 'implement', message: 'backend died', retryable: true };
      await history.record(noop);
      await history.record(failed);
      await history.record(failed);
      const rows = await history.list({ patternId: 'daily-triage' });
      expect(rows.map((row) => [row.tickId, row.kind, row.tokens])).toEqual([
        ['t2', 'failed', 1200],
        ['t1', 'noop', 1200],
      ]);
      expect(rows[0]?.phases).toEqual(base.steps);
      expect(await new PostgresRunHistory({ database, scope: 'acme/other' }).list()).toEqual([]);
    } finally {
      await database.close();
    }
  });
});

describe('a rehearsal on Postgres (reset --mock)', () => {
  it('removes one loop\'s mock attempts and run-history rows; a real backend\'s, another loop\'s and another scope\'s stay', async () => {
    const database = await PostgresDatabase.open({ url: await cluster.createDatabase('rehearsal') });
    try {
      const attempts = (backend: string, scope = 'acme/demo') => new PostgresAttemptLedger({ database, scope, backend });
      const attempt = (patternId: string, tickId: string) => ({ patternId, itemKey: 'ci:CI@main', tickId, at: 1_000, outcome: 'failure' as const, error: 'red', tokensUsed: 900 });
      await attempts('mock').append(attempt('ci-sweeper', 'm1'));
      await attempts('openai').append(attempt('ci-sweeper', 'r1'));
      await attempts('mock').append(attempt('daily-triage', 'm2'));
      await attempts('mock', 'acme/other').append(attempt('ci-sweeper', 'm3'));
      expect(await attempts('mock').removeRehearsal('ci-sweeper')).toBe(1);
      expect((await attempts('openai').history()).map((record) => record.tickId)).toEqual(['r1', 'm2']);
      expect((await attempts('mock', 'acme/other').history()).map((record) => record.tickId)).toEqual(['m3']);
      expect(await attempts('mock').removeRehearsal('ci-sweeper')).toBe(0);

      const history = new PostgresRunHistory({ database, scope: 'acme/demo' });
      const tick = (patternId: string, tickId: string): TickResult => ({ patternId, tickId, level: 'L2', tokens: 0, budget: { spentToday: 0, dailyTokenCap: 1 }, steps: [], startedAt: 1_000, finishedAt: 2_000, kind: 'noop', summary: 'nothing' });
      await history.record(tick('ci-sweeper', 'm1'), 'mock');
      await history.record(tick('ci-sweeper', 'r1'), 'openai');
      await history.record(tick('ci-sweeper', 'old'));
      await history.record(tick('daily-triage', 'm2'), 'mock');
      expect(await history.removeRehearsal('ci-sweeper')).toBe(1);
      expect((await history.list()).map((row) => row.tickId).sort()).toEqual(['m2', 'old', 'r1']);
    } finally {
      await database.close();
    }
  });
});
