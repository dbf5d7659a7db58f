/**
 * One connection pool to the fleet store, its migrations, and transactions
 * with retry. Every Postgres adapter is built on a `PostgresDatabase`.
 */
import pg from 'pg';
import { LoopRuntimeError, type LoopErrorCode } from '../../core/errors.js';
import { describeDatabase, isSerializationFailure, storeError } from './pg-errors.js';
import { MIGRATIONS, MIGRATION_LOCK_KEY, SCHEMA_VERSION } from './schema.js';

export type Queryable = Pick<pg.PoolClient, 'query'>;

export interface PostgresDatabaseOptions {
  /** `postgresql://…` (LOOP_RUNTIME_DATABASE_URL). */
  url: string;
  /** Pool size (default 4). */
  maxConnections?: number;
  /** How long opening one connection may take before it is an error (default 10 s). */
  connectTimeoutMs?: number;
}

/**
 * A pg client whose connection attempt (TCP, startup, authentication) gives up after `timeoutMs`. The bound sits on
 * the client, not the pool: pg-pool applies its own `connectionTimeoutMillis` to a wait for a free client as well,
 * so under CPU load a tick queued behind the pool's busy clients failed while the database answered every query.
 * A wait for a client is as long as the queries ahead of it; a server that does not answer still fails here.
 */
function boundedConnectClient(timeoutMs: number): typeof pg.Client {
  return class BoundedConnectClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super({ ...(typeof config === 'string' ? { connectionString: config } : config), connectionTimeoutMillis: timeoutMs });
    }
  };
}

/**
 * @example
 * ```ts
 * const database = await PostgresDatabase.open({ url: process.env.LOOP_RUNTIME_DATABASE_URL! });
 * const ledger = new PostgresBudgetLedger({ database, scope: 'acme/demo' });
 * ```
 */
export class PostgresDatabase {
  readonly url: string;
  readonly name: string;
  private readonly pool: pg.Pool;

  private constructor(options: PostgresDatabaseOptions) {
    this.url = options.url;
    this.name = describeDatabase(options.url);
    this.pool = new pg.Pool({ connectionString: options.url, max: options.maxConnections ?? 4, Client: boundedConnectClient(options.connectTimeoutMs ?? 10_000), allowExitOnIdle: true });
    // allowExitOnIdle: an idle pool never keeps a CLI process alive after its command finished.
    // An idle client losing its server (Postgres restarted) must not crash the worker; the next query reconnects.
    this.pool.on('error', () => undefined);
  }

  /** Connects and applies the schema migrations (idempotent); a store that cannot be reached is a coded error. */
  static async open(options: PostgresDatabaseOptions): Promise<PostgresDatabase> {
    const database = new PostgresDatabase(options);
    try {
      await database.migrate();
    } catch (error) {
      await database.close();
      throw error;
    }
    return database;
  }

  async migrate(): Promise<void> {
    await this.transaction('STATE_FAILED', 'apply the fleet store schema', async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query('CREATE TABLE IF NOT EXISTS loop_runtime_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      const applied = await client.query<{ version: number }>('SELECT coalesce(max(version), 0) AS version FROM loop_runtime_schema_version');
      const current = Number(applied.rows[0]?.version ?? 0);
      if (current > SCHEMA_VERSION) {
        throw new LoopRuntimeError('STATE_FAILED', `The fleet store at ${this.name} has schema version ${current}, newer than this loop-runtime understands (${SCHEMA_VERSION}).`, {
          fix: 'upgrade loop-runtime on this worker to the version the other workers run.',
        });
      }
      for (const migration of MIGRATIONS) {
        if (migration.version <= current) continue;
        for (const statement of migration.statements) await client.query(statement);
        await client.query('INSERT INTO loop_runtime_schema_version (version) VALUES ($1) ON CONFLICT DO NOTHING', [migration.version]);
      }
    });
  }

  /** Runs one statement; failures become `code` errors naming the database. */
  async query<Row extends pg.QueryResultRow>(code: LoopErrorCode, action: string, text: string, values: unknown[] = []): Promise<Row[]> {
    try {
      return (await this.pool.query<Row>(text, values)).rows;
    } catch (error) {
      throw storeError(code, this.url, action, error);
    }
  }

  /**
   * Runs `body` in one transaction (SERIALIZABLE when asked), retrying a
   * lost serialization race a few times; other failures roll back and
   * become `code` errors.
   */
  async transaction<T>(code: LoopErrorCode, action: string, body: (client: Queryable) => Promise<T>, options: { serializable?: boolean } = {}): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        throw storeError(code, this.url, action, error);
      }
      // A checked-out client has no 'error' listener of the pool's: a socket that dies between two statements of the
      // transaction (Postgres restarted) would emit an unhandled 'error' and end the process. Note it, drop the client.
      let broken: unknown = false;
      const lost = (error: unknown) => {
        broken = error;
      };
      client.on('error', lost);
      try {
        await client.query(options.serializable ? 'BEGIN ISOLATION LEVEL SERIALIZABLE' : 'BEGIN');
        const result = await body(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken ||= rollbackError;
        });
        if (isSerializationFailure(error) && attempt < 8) continue;
        throw storeError(code, this.url, action, error);
      } finally {
        client.removeListener('error', lost);
        client.release(broken ? (broken instanceof Error ? broken : true) : undefined);
      }
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
