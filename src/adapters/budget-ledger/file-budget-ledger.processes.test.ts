/**
 * Two real processes (two ticks of different loops) write one spend journal
 * at the same moment: no open, settle or reconcile entry may be lost.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileBudgetLedger } from './file-budget-ledger.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const VITE_NODE = join(ROOT, 'node_modules', '.bin', 'vite-node');
const DAY = '2026-09-15';
const START = Date.parse(`${DAY}T08:00:00Z`);
const COUNT = 40;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'budget-processes-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const CHILD = `
import { FileBudgetLedger } from ${JSON.stringify(join(ROOT, 'src/adapters/budget-ledger/file-budget-ledger.js'))};
const [root, tag, count] = process.argv.slice(2).filter((arg) => arg !== '--');
const ledger = new FileBudgetLedger({ root });
const lines = [];
let wake = () => {};
process.stdin.on('data', (data) => {
  lines.push(...String(data).split('\\n').filter(Boolean));
  wake();
});
const heard = (word) => new Promise((resolve) => {
  wake = () => lines.includes(word) && resolve();
  wake();
});
console.log('ready');
await heard('go');
for (let index = 0; index < Number(count); index += 1) {
  // Halfway, both processes wait for each other: under any load the journal's first lines hold both writers.
  if (index === Number(count) / 2) {
    console.log('half');
    await heard('on');
    process.stdin.destroy();
  }
  const at = ${START} + index * 10;
  const held = await ledger.open({ at, day: '${DAY}', patternId: tag, tickId: tag + '-' + index, phase: 'implement', tokens: 100 });
  // Every third reservation is left open, as a killed tick would leave it.
  if (index % 3 === 2) continue;
  const closed = await ledger.settle(held.id, { at: at + 5, tokens: 7, costUsd: null });
  if (!closed.ok) throw new Error(closed.message);
}
`;

describe('FileBudgetLedger across processes', () => {
  it('two processes opening and settling at once lose no entry', async () => {
    const child = join(root, 'child.ts');
    await writeFile(child, CHILD);
    const children = ['alpha', 'beta'].map((tag) => spawn(VITE_NODE, [child, '--', root, tag, String(COUNT)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] }));
    const exits = children.map(
      (process) =>
        new Promise<{ code: number | null; stderr: string }>((done) => {
          let stderr = '';
          process.stderr.on('data', (data) => (stderr += String(data)));
          process.on('exit', (code) => done({ code, stderr }));
        }),
    );
    const said = (process: (typeof children)[number], word: string) =>
      new Promise<void>((heard) => {
        let out = '';
        const listen = (data: Buffer) => {
          out += String(data);
          if (out.split('\n').includes(word)) {
            process.stdout.off('data', listen);
            heard();
          }
        };
        process.stdout.on('data', listen);
      });
    const halfway = children.map((process) => said(process, 'half'));
    await Promise.all(children.map((process) => said(process, 'ready')));
    for (const process of children) process.stdin.write('go\n');
    await Promise.all(halfway);
    for (const process of children) process.stdin.write('on\n');
    expect(await Promise.all(exits)).toEqual([
      { code: 0, stderr: '' },
      { code: 0, stderr: '' },
    ]);

    const ledger = new FileBudgetLedger({ root });
    const left = Math.floor(COUNT / 3);
    for (const tag of ['alpha', 'beta']) {
      expect(await ledger.spentOn(DAY, tag)).toBe(left * 100 + (COUNT - left) * 7);
      expect(await ledger.openReservations({ day: DAY, patternId: tag })).toHaveLength(left);
    }
    const lines = (await readFile(ledger.journalPath, 'utf8')).split('\n').filter(Boolean);
    expect(lines).toHaveLength(2 * (COUNT + COUNT - left));
    // Both processes really interleaved (otherwise this test proves nothing about concurrency): each wrote at
    // most 34 lines before the halfway barrier, so the first 40 hold both.
    const owners = lines.map((line) => (JSON.parse(line) as { patternId: string }).patternId);
    expect(owners.slice(0, COUNT).includes('alpha') && owners.slice(0, COUNT).includes('beta')).toBe(true);
  });
});
