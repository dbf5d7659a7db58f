import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLinesBackward } from './read-lines-backward.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'read-lines-backward-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function linesOf(path: string): Promise<string[]> {
  const lines: string[] = [];
  await readLinesBackward(path, (line) => (lines.push(line), 'continue'));
  return lines;
}

describe('readLinesBackward', () => {
  it('visits complete lines newest first; a missing file has none', async () => {
    await writeFile(join(root, 'spend.jsonl'), 'one\ntwo\ntorn');
    expect(await linesOf(join(root, 'spend.jsonl'))).toEqual(['two', 'one']);
    expect(await linesOf(join(root, 'missing.jsonl'))).toEqual([]);
  });

  // Only "no such file" is an empty ledger: a path that cannot be reached is an error (fail closed), also now that
  // a stat answers whether the file exists before it is opened.
  it('throws for a path it cannot reach instead of answering no lines', async () => {
    await writeFile(join(root, 'not-a-directory'), '');
    await expect(linesOf(join(root, 'not-a-directory', 'spend.jsonl'))).rejects.toThrow(/ENOTDIR/);
  });
});
