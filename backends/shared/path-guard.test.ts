import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveInside } from './path-guard.js';

let base: string;
let root: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'loop-guard-'));
  root = path.join(base, 'tree');
  await mkdir(path.join(root, 'src'), { recursive: true });
  await mkdir(path.join(base, 'secret'));
  await writeFile(path.join(base, 'secret', 'key.txt'), 'k');
  await symlink(path.join(base, 'secret'), path.join(root, 'escape'));
  await symlink(path.join(root, 'src'), path.join(root, 'inner-link'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('resolveInside', () => {
  it('accepts paths inside, existing or not', async () => {
    expect(await resolveInside(root, 'src/new/file.ts')).toMatchObject({ ok: true, relative: 'src/new/file.ts' });
    expect(await resolveInside(root, path.join(root, 'src'))).toMatchObject({ ok: true, relative: 'src' });
    expect(await resolveInside(root, '')).toMatchObject({ ok: true, relative: '.' });
    expect(await resolveInside(root, 'inner-link/x.ts')).toMatchObject({ ok: true });
  });

  it('refuses .., absolute paths outside, symlinks that escape, and .git', async () => {
    expect(await resolveInside(root, '../secret/key.txt')).toMatchObject({ ok: false, message: expect.stringContaining('..') });
    expect(await resolveInside(root, 'src/../../secret')).toMatchObject({ ok: false });
    expect(await resolveInside(root, path.join(base, 'secret', 'key.txt'))).toMatchObject({ ok: false, message: expect.stringContaining('outside') });
    expect(await resolveInside(root, 'escape/key.txt')).toMatchObject({ ok: false, message: expect.stringContaining('symbolic link') });
    expect(await resolveInside(root, 'escape/new-file.txt')).toMatchObject({ ok: false });
    expect(await resolveInside(root, '.git/config')).toMatchObject({ ok: false, message: expect.stringContaining('.git') });
  });
});
