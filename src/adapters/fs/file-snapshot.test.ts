import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileSnapshot } from './file-snapshot.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'file-snapshot-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('fileSnapshot', () => {
  it('reads a file once: a later change is not seen, whichever way the path is spelled', async () => {
    await writeFile(join(root, 'loop-run-log.md'), 'first\n');
    const files = fileSnapshot();
    expect(files.read(join(root, 'loop-run-log.md'))).toBe('first\n');
    await writeFile(join(root, 'loop-run-log.md'), 'second\n');
    expect(await files.readText(join(root, '.', 'loop-run-log.md'))).toBe('first\n');
    expect(fileSnapshot().read(join(root, 'loop-run-log.md'))).toBe('second\n');
  });

  it('answers null for a missing file and throws for one that cannot be read', () => {
    const files = fileSnapshot();
    expect(files.read(join(root, 'missing.md'))).toBeNull();
    expect(() => files.read(root)).toThrow(/EISDIR/);
  });
});
