/**
 * The fleet store when its server goes away under a transaction: the
 * connection is dropped between two statements (as a Postgres restart does).
 * The transaction fails with a retryable coded error naming the database,
 * the process survives (a pg client checked out of the pool has no 'error'
 * listener of its own: an unhandled one ends the process — vitest reports it
 * as an unhandled error and fails this file), and the next transaction gets
 * a fresh connection.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../src/adapters/postgres/index.js';
import { isLoopRuntimeError } from '../src/core/errors.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster();
});
afterAll(async () => cluster?.stop());

describe('PostgresDatabase.transaction when the server drops the connection mid-transaction', () => {
  it('is a retryable error of that transaction, not a crash; the pool recovers', async () => {
    const url = await cluster.createDatabase('outage');
    const database = await PostgresDatabase.open({ url, maxConnections: 1 });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const failure = await database
        .transaction('STATE_FAILED', 'write a row', async (client) => {
          const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          // Between two statements of ours the server ends this session: the socket dies with no query running.
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
          while ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0]!.pid])).rows.length > 0);
          await client.query('SELECT 1');
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(isLoopRuntimeError(failure)).toBe(true);
      expect(failure).toMatchObject({ code: 'STATE_FAILED', retryable: true });
      expect((failure as Error).message).toContain('cannot be reached');
      // The dead client left the pool: the one connection the pool may hold is a fresh one.
      expect(await database.transaction('STATE_FAILED', 'read', async (client) => (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one)).toBe(1);
    } finally {
      await admin.end();
      await database.close();
    }
  });
});
