import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutOfWorktree, createRepositorySecrets } from './repository-secrets.js';

let base: string;
let checkout: string;
let worktree: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'loop-repo-secrets-')));
  checkout = join(base, 'checkout');
  await mkdir(checkout);
  await writeFile(join(checkout, 'a.txt'), 'a\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: checkout, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'add', '.');
  git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  git('remote', 'add', 'origin', 'https://bot:remote-token-5f1c2a9e@git.example.test/app.git');
  await writeFile(join(checkout, '.env'), 'API_TOKEN=env-token-0b8d4c1e\nDATABASE_URL=postgres://app:db-password-73a1@db/app\nDEBUG=true\n');
  worktree = join(base, 'state', 'a1');
  git('worktree', 'add', '--quiet', '-b', 'loop/a1', worktree, 'HEAD');
  await writeFile(join(worktree, '.env.local'), 'WORKTREE_SECRET=worktree-secret-9e2d\n');
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('checkoutOfWorktree', () => {
  it("follows a linked worktree's .git file to its checkout; null for a checkout or a plain directory", async () => {
    expect(await checkoutOfWorktree(worktree)).toBe(checkout);
    expect(await checkoutOfWorktree(checkout)).toBeNull();
    expect(await checkoutOfWorktree(base)).toBeNull();
  });
});

describe('createRepositorySecrets', () => {
  it("finds the checkout's and the worktree's secret-file values, a URL's password and a remote's token", async () => {
    const values = await createRepositorySecrets().valuesFor(worktree);
    expect(values).toEqual(expect.arrayContaining(['env-token-0b8d4c1e', 'postgres://app:db-password-73a1@db/app', 'db-password-73a1', 'remote-token-5f1c2a9e', 'worktree-secret-9e2d']));
    expect(values).not.toContain('true');
  });

  it('a plain directory with no secret file gives nothing', async () => {
    expect(await createRepositorySecrets().valuesFor(join(checkout, '.git', 'refs'))).toEqual([]);
  });
});
