/** Starts the OutcomeStore suite's appending processes together: all open their store, then all are told to go. */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { OutcomeLine } from '../../src/core/outcomes/index.js';
import { bundledChild } from '../bundled-child.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CHILD = join(import.meta.dirname, 'outcome-store-child.ts');

export async function appendInProcesses(kind: 'files' | 'postgres', target: string, scratch: string, batches: readonly (readonly OutcomeLine[])[], processes: number): Promise<number[]> {
  const batchesFile = join(scratch, `batches-${processes}.json`);
  await writeFile(batchesFile, JSON.stringify(batches));
  const bundle = await bundledChild(CHILD);
  const children = Array.from({ length: processes }, () => {
    const child = spawn(process.execPath, [bundle, kind, target, batchesFile], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines: string[] = [];
    const waiters: Array<() => void> = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      waiters.splice(0).forEach((wake) => wake());
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const line = async (index: number) => {
      while (lines.length <= index) {
        const woken = new Promise<'line' | 'exit'>((resolve) => {
          waiters.push(() => resolve('line'));
          void exited.then(() => resolve('exit'));
        });
        if ((await woken) === 'exit' && lines.length <= index) throw new Error(`outcome-store child exited early: ${stderr}`);
      }
      return lines[index]!;
    };
    return { child, line, exited, stderr: () => stderr };
  });
  await Promise.all(children.map(async ({ line }) => expectLine(await line(0), 'ready')));
  for (const { child } of children) child.stdin.write('go\n');
  return Promise.all(
    children.map(async ({ line, exited, stderr }) => {
      const result = JSON.parse(await line(1)) as { added: number };
      if ((await exited) !== 0) throw new Error(`outcome-store child failed: ${stderr()}`);
      return result.added;
    }),
  );
}

function expectLine(line: string, expected: string): void {
  if (line !== expected) throw new Error(`outcome-store child said ${JSON.stringify(line)}, expected ${expected}`);
}
