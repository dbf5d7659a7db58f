/**
 * The fleet budget ledger against the budget-ledger-v2 suite, on a real
 * private Postgres; plus what only a shared store can show: N breakers in
 * separate connections racing for one cap never pass it together, and an
 * unreachable store is a coded error, never an empty ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBudgetLedger, PostgresDatabase } from '../../src/adapters/postgres/index.js';
import { BudgetBreaker } from '../../src/core/budget/budget-breaker.js';
import { isLoopRuntimeError } from '../../src/core/errors.js';
import { describeBudgetLedgerConformance } from '../../src/testing/conformance/index.js';
import { startPgCluster, type PgCluster } from '../pg-cluster.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster();
});
afterAll(async () => cluster?.stop());

describeBudgetLedgerConformance('PostgresBudgetLedger', async () => {
  const url = await cluster.createDatabase('budget');
  const opened: PostgresDatabase[] = [];
  const open = async () => {
    const database = await PostgresDatabase.open({ url });
    opened.push(database);
    return new PostgresBudgetLedger({ database, scope: 'acme/demo' });
  };
  const ledger = await open();
  const mockLedger = () => new PostgresBudgetLedger({ database: opened[0]!, scope: 'acme/demo', backend: 'mock' });
  // Another scope's mock spend of the same loop in the same table: the removal must leave it.
  const elsewhere = new PostgresBudgetLedger({ database: opened[0]!, scope: 'acme/other', backend: 'mock' });
  await elsewhere.record({ at: Date.parse('2026-11-21T08:00:00Z'), day: '2026-11-21', patternId: 'daily-triage', tickId: 'elsewhere', phase: 'triage', tokens: 42, costUsd: null });
  const rehearsal = {
    mockLedger,
    remove: async (patternId: string) => {
      const removed = await ledger.removeRehearsal(patternId);
      expect(await elsewhere.spentOn('2026-11-21', 'daily-triage')).toBe(42);
      return removed;
    },
  };
  return { ledger, reopen: open, rehearsal, cleanup: async () => void (await Promise.all(opened.map((database) => database.close()))) };
}, { rehearsals: true });

describe('PostgresBudgetLedger shared by a fleet', () => {
  it('a mock rehearsal never spends a real backend\'s cap; the mock\'s own ledger counts everything (as the file ledger does)', async () => {
    const database = await PostgresDatabase.open({ url: await cluster.createDatabase('backends') });
    try {
      const at = Date.parse('2026-11-23T09:00:00Z');
      const day = '2026-11-23';
      const mock = new PostgresBudgetLedger({ database, scope: 'acme/demo', backend: 'mock' });
      const real = new PostgresBudgetLedger({ database, scope: 'acme/demo', backend: 'claude-code' });
      const rehearsal = await mock.open({ at, day, patternId: 'ci-sweeper', tickId: 't1', phase: 'triage', tokens: 5_000 });
      expect((await mock.settle(rehearsal.id, { at: at + 1, tokens: 4_000, costUsd: null })).ok).toBe(true);
      await mock.record({ at, day, patternId: 'ci-sweeper', tickId: 't1', phase: 'check', tokens: 300, costUsd: null });
      const spent = await real.open({ at, day, patternId: 'ci-sweeper', tickId: 't2', phase: 'triage', tokens: 1_000 });
      expect(await real.spentOn(day, 'ci-sweeper')).toBe(1_000);
      expect(await mock.spentOn(day, 'ci-sweeper')).toBe(5_300);
      // The cap check itself (openWithinCap) sees only the real spend: a 10,000 cap still has 9,000 left.
      const capped = await real.openWithinCap({ at, day, patternId: 'ci-sweeper', tickId: 't2', phase: 'implement', tokens: 9_000 }, 10_000);
      expect(capped.ok).toBe(true);
      expect((await real.settle(spent.id, { at: at + 2, tokens: 900, costUsd: null })).ok).toBe(true);
    } finally {
      await database.close();
    }
  });

  it('never lets 8 breakers in separate connections together pass one cap', async () => {
    const url = await cluster.createDatabase('race');
    const cap = 10_000;
    const databases = await Promise.all(Array.from({ length: 8 }, () => PostgresDatabase.open({ url, maxConnections: 2 })));
    try {
      const now = Date.parse('2026-11-23T09:00:00Z');
      // Each breaker reads the day's spend first (all see 0), then all race: an in-process check alone would grant 8 × 3 × 900.
      const breakers = databases.map((database) => new BudgetBreaker(cap, { ledger: new PostgresBudgetLedger({ database, scope: 'acme/demo' }) }));
      for (const breaker of breakers) expect((await breaker.status('ci-sweeper', now)).spent).toBe(0);
      const grants = await Promise.all(
        breakers.flatMap((breaker, worker) =>
          Array.from({ length: 3 }, (_, call) => breaker.reserve({ patternId: 'ci-sweeper', tickId: `w${worker}-t${call}`, phase: 'implement', tokens: 900, now })),
        ),
      );
      const granted = grants.filter((grant) => grant.ok).length;
      expect(granted).toBe(Math.floor(cap / 900));
      expect(grants.some((grant) => !grant.ok)).toBe(true);
      const ledger = new PostgresBudgetLedger({ database: databases[0]!, scope: 'acme/demo' });
      expect(await ledger.spentOn('2026-11-23', 'ci-sweeper')).toBe(granted * 900);
      expect(await ledger.spentOn('2026-11-23', 'ci-sweeper')).toBeLessThanOrEqual(cap);
      // Another scope (another repository's loop of the same name) has its own cap.
      const other = new BudgetBreaker(cap, { ledger: new PostgresBudgetLedger({ database: databases[1]!, scope: 'acme/other' }) });
      expect((await other.reserve({ patternId: 'ci-sweeper', tickId: 'o1', phase: 'triage', tokens: 900, now })).ok).toBe(true);
    } finally {
      await Promise.all(databases.map((database) => database.close()));
    }
  });

  it('refuses to open a missing database (STATE_FAILED) and reports a damaged store as BUDGET_LEDGER_UNREADABLE, naming the database and the fix, never as 0', async () => {
    const url = cluster.url('missing_database');
    const error: unknown = await PostgresDatabase.open({ url }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(isLoopRuntimeError(error) ? error.code : error).toBe('STATE_FAILED');
    expect(isLoopRuntimeError(error) ? error.message : '').toMatch(/missing_database.*To fix: start PostgreSQL or correct LOOP_RUNTIME_DATABASE_URL/s);

    const live = await PostgresDatabase.open({ url: await cluster.createDatabase('dropped') });
    const ledger = new PostgresBudgetLedger({ database: live });
    await ledger.open({ at: 1, day: '2026-11-23', patternId: 'p', tickId: 't', phase: 'triage', tokens: 5 });
    await live.query('STATE_FAILED', 'drop the table', 'DROP TABLE loop_runtime_budget_entries');
    const read: unknown = await ledger.spentOn('2026-11-23', 'p').then(
      (value) => value,
      (caught: unknown) => caught,
    );
    expect(isLoopRuntimeError(read) ? read.code : read).toBe('BUDGET_LEDGER_UNREADABLE');
    expect(isLoopRuntimeError(read) ? read.message : '').toContain('To fix: ');
    await live.close();
  });

  it('applies its migrations idempotently, also from workers starting at once', async () => {
    const url = await cluster.createDatabase('migrate');
    const databases = await Promise.all(Array.from({ length: 4 }, () => PostgresDatabase.open({ url, maxConnections: 1 })));
    const versions = await databases[0]!.query<{ version: number }>('STATE_FAILED', 'read', 'SELECT version FROM loop_runtime_schema_version');
    expect(versions.map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6]);
    await Promise.all(databases.map((database) => database.close()));
  });
});
