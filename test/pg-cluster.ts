/**
 * A private PostgreSQL 15 cluster for one test file: initdb in a temporary
 * directory owned by an unprivileged user (initdb refuses root), a server on
 * a free loopback port with fsync off (commits still acknowledged only once
 * their WAL is written, so a killed server loses none), one database per test. Start it once
 * in `beforeAll`, stop it in `afterAll`; `startPgCluster` returns null (and
 * says why) when the server binaries are not installed, so callers can skip.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, chownSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const BIN = process.env.LOOP_RUNTIME_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PgCluster {
  readonly port: number;
  readonly dataDir: string;
  /** A connection URL for `database` on this cluster. */
  url(database?: string): string;
  /** Creates a fresh, empty database and returns its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Stops the server immediately (as a crash would), keeping the data. */
  kill(): void;
  /** Starts the server again on the same port and data. */
  start(): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the server on a port the kernel just handed out. Test files run in parallel, so another file (or its
 * server) can take that port between our probe and the server's bind: then the start fails and a new port is tried.
 */
async function startOnFreePort(startOn: (port: number) => void): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      startOn(port);
      return port;
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

/** Why the cluster cannot start here, or null when it can. */
export function pgUnavailableReason(): string | null {
  if (!existsSync(join(BIN, 'initdb'))) return `PostgreSQL server binaries not found in ${BIN} (apt-get install postgresql, or set LOOP_RUNTIME_PG_BIN).`;
  return null;
}

function asOwner(command: string, args: string[]): void {
  const isRoot = process.getuid?.() === 0;
  const [file, argv] = isRoot ? ['runuser', ['-u', 'nobody', '--', command, ...args]] : [command, args];
  execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export async function startPgCluster(): Promise<PgCluster> {
  const unavailable = pgUnavailableReason();
  if (unavailable) throw new Error(unavailable);
  const root = mkdtempSync(join(tmpdir(), 'loop-runtime-pg-'));
  chmodSync(root, 0o755);
  if (process.getuid?.() === 0) chownSync(root, 65534, 65534);
  const dataDir = join(root, 'data');
  asOwner(join(BIN, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
  // fsync=off is safe for a server that is only ever killed, never its machine: WAL written at commit is in the
  // kernel's page cache and survives. synchronous_commit stays on: with it off, a `kill()` (pg_ctl -m immediate) loses
  // the last acknowledged commits (measured: 13-15 of 3,000 back-to-back inserts), which no durable engine survives —
  // a worker's recorded step or finished tick silently un-happens.
  const serverOptions = (port: number) => `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`;
  const startOn = (port: number) => asOwner(join(BIN, 'pg_ctl'), ['-D', dataDir, '-o', serverOptions(port), '-l', join(root, 'server.log'), '-w', '-t', '300', 'start']);
  const port = await startOnFreePort(startOn);
  const start = () => startOn(port);
  const url = (database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  let databases = 0;
  return {
    port,
    dataDir,
    url,
    async createDatabase(prefix = 'test') {
      const name = `${prefix}_${process.pid}_${++databases}`.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    kill() {
      asOwner(join(BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', 'stop']);
    },
    start,
    async stop() {
      try {
        asOwner(join(BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', 'stop']);
      } catch {
        // Already stopped (a test killed it): nothing to do but clean up.
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
