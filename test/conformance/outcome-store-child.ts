/**
 * A real second (third, …) OS process for the OutcomeStore suite, bundled by test/bundled-child.ts and run with node:
 *   outcome-store-child.ts <files|postgres> <root|url> <batches.json>
 * Opens the store, prints `ready`, waits for a line on stdin (so every process starts appending at once), appends each
 * batch in order with `oncePer: 'tick'`, and prints how many lines it added.
 */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { FileOutcomeStore, type OutcomeStore } from '../../src/adapters/outcomes/outcome-store.js';
import { PostgresDatabase, PostgresOutcomeStore } from '../../src/adapters/postgres/index.js';
import type { OutcomeLine } from '../../src/core/outcomes/index.js';

const [kind, target, batchesFile] = process.argv.slice(2);
if ((kind !== 'files' && kind !== 'postgres') || !target || !batchesFile) {
  process.stderr.write('usage: outcome-store-child.ts <files|postgres> <root|url> <batches.json>\n');
  process.exit(2);
}
const batches = JSON.parse(await readFile(batchesFile, 'utf8')) as OutcomeLine[][];
const database = kind === 'postgres' ? await PostgresDatabase.open({ url: target, maxConnections: 1 }) : null;
const store: OutcomeStore = database ? new PostgresOutcomeStore({ database, scope: 'acme/demo' }) : new FileOutcomeStore(target);
process.stdout.write('ready\n');
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));
let added = 0;
for (const batch of batches) added += await store.append(batch, { oncePer: 'tick' });
process.stdout.write(`${JSON.stringify({ added })}\n`);
await database?.close();
process.exit(0);
