/**
 * A fleet worker's liveness session: one Postgres connection holding a
 * session-level advisory lock on the worker's executor id for as long as the
 * worker lives. When the server restarts, every session — and so every
 * worker's lock — is gone at once: the session reconnects and takes its lock
 * again, and `sinceConnected` tells the sweeper to give the other workers the
 * same time to do so before it judges any of them dead.
 */
import pg from 'pg';

export function executorLockKey(executorId: string): string {
  return `loop-runtime-executor:${executorId}`;
}

/**
 * @example
 * ```ts
 * const liveness = await LivenessSession.open(url, 'worker-a'); // holds the lock of worker-a
 * await liveness.query('SELECT 1');
 * ```
 */
export class LivenessSession {
  private client: pg.Client;
  private connectedAt = Date.now();
  private reconnecting: Promise<void> | null = null;
  private closed = false;
  /** Queries run one at a time: a pg client does not queue them for us. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly url: string,
    private readonly executorId: string,
    client: pg.Client,
  ) {
    this.client = client;
    this.watch(client);
  }

  static async open(url: string, executorId: string): Promise<LivenessSession> {
    const client = await LivenessSession.locked(url, executorId);
    return new LivenessSession(url, executorId, client);
  }

  private static async locked(url: string, executorId: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [executorLockKey(executorId)]);
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  /** Milliseconds since the session last (re)connected and took its lock. */
  sinceConnected(): number {
    return Date.now() - this.connectedAt;
  }

  query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<Row>> {
    const run = this.queue.then(async () => {
      if (this.reconnecting) await this.reconnecting;
      return this.client.query<Row>(text, values);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client.end().catch(() => undefined);
  }

  private watch(client: pg.Client): void {
    const lost = () => {
      if (this.closed || client !== this.client || this.reconnecting) return;
      this.reconnecting = this.reconnect().finally(() => {
        this.reconnecting = null;
      });
    };
    client.on('error', lost);
    client.on('end', lost);
  }

  private async reconnect(): Promise<void> {
    for (let attempt = 0; !this.closed; attempt += 1) {
      try {
        const client = await LivenessSession.locked(this.url, this.executorId);
        this.client = client;
        this.connectedAt = Date.now();
        this.watch(client);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** attempt)));
      }
    }
  }
}
