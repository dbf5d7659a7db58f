import { mkdir, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopRuntimeError } from '../../core/errors.js';
import { readTextOrNull, updateFileAtomically, withFileLock, writeTextAtomically } from './atomic-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('atomic files', () => {
  it('writes, reads, and returns null for a missing file', async () => {
    const path = join(dir, 'a.md');
    expect(await readTextOrNull(path)).toBeNull();
    await writeTextAtomically(path, 'hello\n');
    expect(await readFile(path, 'utf8')).toBe('hello\n');
    // No temp files or lock directories are left behind.
    expect(await readdir(dir)).toEqual(['a.md']);
  });

  it('serializes concurrent read-modify-write cycles in one process', async () => {
    const path = join(dir, 'nested', 'log.md');
    await Promise.all(
      Array.from({ length: 25 }, (_, index) => updateFileAtomically(path, (old) => `${old ?? ''}line ${index}\n`)),
    );
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(25);
    expect(new Set(lines).size).toBe(25);
  });

  it('does not rewrite a file the update leaves unchanged', async () => {
    const path = join(dir, 'same.md');
    await writeFile(path, 'x');
    const old = new Date(Date.UTC(2020, 0, 1));
    await utimes(path, old, old);
    await updateFileAtomically(path, (text) => text ?? '');
    expect((await stat(path)).mtime.getTime()).toBe(old.getTime());
  });

  it('takes over a stale lock left by a crashed process', async () => {
    const path = join(dir, 'state.md');
    await mkdir(`${path}.lock`);
    const old = new Date(Date.now() - 60_000);
    await utimes(`${path}.lock`, old, old);
    await updateFileAtomically(path, () => 'ok\n');
    expect(await readFile(path, 'utf8')).toBe('ok\n');
  });

  it('fails with STATE_FAILED and a fix when a live lock is held too long', async () => {
    const path = join(dir, 'held.md');
    await withFileLock(path, async () => {
      const error = await updateFileAtomically(path, () => 'never', { waitMs: 200 }).catch((caught: unknown) => caught);
      expect(isLoopRuntimeError(error) && error.code).toBe('STATE_FAILED');
      expect(String((error as Error).message)).toContain('To fix:');
    });
    expect(await readTextOrNull(path)).toBeNull();
  });
});
