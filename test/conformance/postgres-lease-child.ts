/**
 * A second OS process for the Postgres lease tests, bundled by test/bundled-child.ts and run with node:
 *   postgres-lease-child.ts <url> <now> <itemKey> <patternId> <tickId>
 * Acquires the item lease at clock time <now>, prints one JSON line with what
 * it got, and releases a granted lease.
 */
import { PostgresDatabase, PostgresItemLeases } from '../../src/adapters/postgres/index.js';

const [url, now, itemKey, patternId, tickId] = process.argv.slice(2);
if (!url || !now || !itemKey || !patternId || !tickId) {
  process.stderr.write('usage: postgres-lease-child.ts <url> <now> <itemKey> <patternId> <tickId>\n');
  process.exit(2);
}
const database = await PostgresDatabase.open({ url, maxConnections: 1 });
const leases = new PostgresItemLeases({ database, clock: { now: () => Number(now) }, scope: 'acme/demo', staleMs: 60_000 });
const result = await leases.acquire({ itemKey, patternId, tickId });
process.stdout.write(`${JSON.stringify(result.ok ? { ok: true } : { ok: false, holder: result.holder })}\n`);
if (result.ok) await result.release();
await database.close();
