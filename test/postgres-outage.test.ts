/**
 * The fleet store when its server goes away under a transaction: the
 * connection is dropped between two statements (as a Postgres restart does).
 * The transaction fails with a retryable coded error naming the database,
 * the process survives (a pg client checked out of the pool has no 'error'
 * listener of its own: an unhandled one ends the process — vitest reports it
 * as an unhandled error and fails this file), and the next transaction gets
 * a fresh connection. A wait for a free client of a busy pool is not bounded by the connection timeout (pg-pool's
 * `connectionTimeoutMillis` bounded both: under CPU load a fleet tick failed while the database answered); a server
 * that accepts and never answers still fails the connection after it.
 */
import { createServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

describe('PostgresDatabase: a wait for a pool client versus a connection that never opens', () => {
  it('serves a transaction that waited for the only client longer than the connection timeout', async () => {
    const database = await PostgresDatabase.open({ url: await cluster.createDatabase('pool_wait'), maxConnections: 1, connectTimeoutMs: 1_000 });
    let release!: () => void;
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = database.transaction('STATE_FAILED', 'hold the only client', async (client) => {
      await client.query('SELECT 1');
      holding();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await held;
    // Only the timers are fake (the sockets stay real): the waiter's clock moves past the connection timeout at once.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let waiter: Promise<unknown>;
    try {
      waiter = database.transaction('STATE_FAILED', 'wait for the client', async (client) => (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).then(
        (one) => one,
        (error: unknown) => error,
      );
      await vi.advanceTimersByTimeAsync(5_000);
      // With the pool's own timeout this had failed by now: 'timeout exceeded when trying to connect'.
      const early = await Promise.race([waiter, Promise.resolve('still waiting')]);
      expect(early).toBe('still waiting');
    } finally {
      vi.useRealTimers();
    }
    release();
    await holder;
    expect(await waiter).toBe(1);
    await database.close();
  });

  it('fails a connection to a server that accepts and never answers, after the connection timeout, as a retryable store error', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const failure = await PostgresDatabase.open({ url: `postgresql://postgres@127.0.0.1:${port}/silent`, connectTimeoutMs: 200 }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isLoopRuntimeError(failure)).toBe(true);
      expect(failure).toMatchObject({ code: 'STATE_FAILED', retryable: true });
      expect((failure as Error).message).toContain('cannot be reached');
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
