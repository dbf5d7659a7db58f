/**
 * The OutcomeStore suite for the fleet store's rows (`loop_runtime_outcomes`) on a real private Postgres, real
 * processes included, and the v4 → v5 migration of a store that workers of the previous version created.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresDatabase, PostgresOutcomeStore } from '../../src/adapters/postgres/index.js';
import { MIGRATIONS } from '../../src/adapters/postgres/schema.js';
import { describeOutcomeStoreConformance, sampleProposal } from '../../src/testing/conformance/index.js';
import { cleanupTempDirs, tempDir } from '../git-fixtures.js';
import { startPgCluster, type PgCluster } from '../pg-cluster.js';
import { appendInProcesses } from './outcome-store-processes.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster();
}, 30_000);
afterAll(async () => {
  await cluster?.stop();
  await cleanupTempDirs();
});

describeOutcomeStoreConformance('PostgresOutcomeStore', {
  async create() {
    const url = await cluster.createDatabase('outcomes');
    const database = await PostgresDatabase.open({ url });
    const scratch = await tempDir('outcome-store-pg-');
    return {
      // Another scope's lines in the same table must never show: every handle of the subject reads 'acme/demo'.
      open: () => new PostgresOutcomeStore({ database, scope: 'acme/demo' }),
      appendInOtherProcesses: (batches, processes) => appendInProcesses('postgres', url, scratch, batches, processes),
      corrupt: async () =>
        void (await database.query('STATE_FAILED', 'corrupt', `INSERT INTO loop_runtime_outcomes (scope, line) VALUES ('acme/demo', '{"type":"proposal","commit":"nope"}'::jsonb)`)),
      dispose: () => database.close(),
    };
  },
});

describe('PostgresOutcomeStore beyond the suite', () => {
  it('keeps scopes apart: one repository never sees another one proposals', async () => {
    const database = await PostgresDatabase.open({ url: await cluster.createDatabase('scopes') });
    await new PostgresOutcomeStore({ database, scope: 'acme/one' }).append([sampleProposal('tick-1')], { oncePer: 'tick' });
    expect(await new PostgresOutcomeStore({ database, scope: 'acme/two' }).lines()).toEqual([]);
    // The same tick id in another scope is another tick.
    expect(await new PostgresOutcomeStore({ database, scope: 'acme/two' }).append([sampleProposal('tick-1')], { oncePer: 'tick' })).toBe(1);
    expect(await new PostgresOutcomeStore({ database, scope: 'acme/one' }).lines()).toHaveLength(1);
    await database.close();
  });

  it('migrates a version-4 store to the current version (outcomes in v5, backends on attempts and runs in v6), keeping what was there', async () => {
    const url = await cluster.createDatabase('migrate-v4');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE loop_runtime_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const migration of MIGRATIONS.filter((step) => step.version <= 4)) {
      for (const statement of migration.statements) await client.query(statement);
      await client.query('INSERT INTO loop_runtime_schema_version (version) VALUES ($1)', [migration.version]);
    }
    await client.query(`INSERT INTO loop_runtime_delivery_ledgers (scope, ledger) VALUES ('acme/demo', 'kept')`);
    const before = await client.query(`SELECT to_regclass('loop_runtime_outcomes') AS table`);
    expect(before.rows[0].table).toBeNull();
    await client.end();

    const database = await PostgresDatabase.open({ url });
    const versions = await database.query<{ version: number }>('STATE_FAILED', 'read', 'SELECT version FROM loop_runtime_schema_version ORDER BY version');
    expect(versions.map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await database.query<{ ledger: string }>('STATE_FAILED', 'read', 'SELECT ledger FROM loop_runtime_delivery_ledgers')).toEqual([{ ledger: 'kept' }]);
    expect(await new PostgresOutcomeStore({ database, scope: 'acme/demo' }).append([sampleProposal('tick-1')], { oncePer: 'tick' })).toBe(1);
    await database.close();
  });
});
