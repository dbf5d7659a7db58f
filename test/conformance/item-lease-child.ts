/**
 * A second OS process for the item-lease tests, bundled by test/bundled-child.ts and run with node:
 *   item-lease-child.ts <root> <itemKey> <patternId> <tickId> <release|hold>
 * Prints one JSON line with what it got. With "hold" it keeps a granted lease
 * until it is killed.
 */
import { FileItemLeases, FileLeases } from '../../src/adapters/leases/file-leases.js';

const [root, itemKey, patternId, tickId, mode] = process.argv.slice(2);
if (!root || !itemKey || !patternId || !tickId || (mode !== 'release' && mode !== 'hold')) {
  process.stderr.write('usage: item-lease-child.ts <root> <itemKey> <patternId> <tickId> <release|hold>\n');
  process.exit(2);
}
const result = await new FileItemLeases(new FileLeases({ root })).acquire({ itemKey, patternId, tickId });
process.stdout.write(`${JSON.stringify(result.ok ? { ok: true, pid: process.pid } : { ok: false, holder: result.holder })}\n`);
if (result.ok && mode === 'release') await result.release();
if (result.ok && mode === 'hold') setInterval(() => {}, 60_000);
