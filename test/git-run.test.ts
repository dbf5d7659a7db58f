import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { git, GitCommandError, gitFailure, identityEnv } from '../src/adapters/git/git-run.js';
import { cleanupTempDirs, makeRepo, sh, tempDir } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const saved = { GIT_DIR: process.env.GIT_DIR, GIT_WORK_TREE: process.env.GIT_WORK_TREE };
afterEach(() => {
  vi.useRealTimers();
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('git runner (simple-git)', () => {
  it('returns stdout untrimmed and treats a silent non-zero exit as a failure', async () => {
    const root = await makeRepo();
    const head = sh(root, ['rev-parse', 'HEAD']);
    expect(await git(root).raw(['rev-parse', 'HEAD'])).toBe(head);
    sh(root, ['commit', '--quiet', '--allow-empty', '-m', 'second']);
    // `merge-base --is-ancestor` answers "no" with exit 1 and nothing on stderr.
    await expect(git(root).raw(['merge-base', '--is-ancestor', 'HEAD', head.trim()])).rejects.toBeInstanceOf(GitCommandError);
    expect(await git(root).tryRaw(['merge-base', '--is-ancestor', 'HEAD', head.trim()])).toBeNull();
    expect(await git(root).tryRaw(['merge-base', '--is-ancestor', head.trim(), 'HEAD'])).toBe('');
  });

  it('turns a failure into port data naming the command and the stderr tail', async () => {
    const root = await makeRepo();
    const error = await git(root).raw(['rev-parse', '--verify', 'no-such-branch']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitCommandError);
    const failure = gitFailure('Could not resolve', error);
    expect(failure).toMatchObject({ ok: false, reason: 'git', retryable: false, detail: { args: ['rev-parse', '--verify', 'no-such-branch'] } });
    expect(failure.message).toMatch(/^Could not resolve: git rev-parse --verify no-such-branch failed: fatal: \S/);
    expect(failure.detail).toMatchObject({ stderr: expect.stringMatching(/^fatal: /) });
  });

  it("ignores a surrounding hook's GIT_DIR and passes the caller's identity", async () => {
    const root = await makeRepo();
    const elsewhere = await makeRepo({ 'other.txt': 'other\n' });
    process.env.GIT_DIR = `${elsewhere}/.git`;
    process.env.GIT_WORK_TREE = elsewhere;
    expect((await git(root).raw(['ls-files'])).split('\n').filter(Boolean)).toEqual(['README.md', 'src/example.ts']);
    await git(root).raw(['commit', '--quiet', '--allow-empty', '-m', 'bot'], identityEnv({ name: 'Loop Bot', email: 'bot@example.test' }));
    delete process.env.GIT_DIR;
    delete process.env.GIT_WORK_TREE;
    expect(sh(root, ['log', '-1', '--format=%an <%ae> / %cn']).trim()).toBe('Loop Bot <bot@example.test> / Loop Bot');
  });

  it('gives git an empty stdin: a command that reads it ends instead of waiting for input', async () => {
    const root = await makeRepo();
    // The empty blob's id: git read end-of-input at once (a stdin pipe left open would hang here).
    expect((await git(root).raw(['hash-object', '--stdin'])).trim()).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
  });

  it('ends a command that prints nothing when git exits, with no timed wait after it (simple-git waits 50 ms for silence)', async () => {
    const root = await makeRepo();
    const head = sh(root, ['rev-parse', 'HEAD']).trim();
    // With setTimeout faked and never advanced, a runner that still waited on a timer after a silent command would
    // never settle, and this test would fail on its timeout. The last lines show the clock is really frozen.
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    expect(await git(root).raw(['update-ref', 'refs/heads/silent', head])).toBe('');
    expect(await git(root).raw(['diff', '--quiet', 'HEAD', 'refs/heads/silent'])).toBe('');
    expect(await git(root).raw(['rev-parse', 'refs/heads/silent'])).toBe(`${head}\n`);
    const waited = new Promise((resolve) => setTimeout(resolve, 50));
    expect(await Promise.race([waited.then(() => 'timer fired'), git(root).raw(['rev-parse', 'HEAD']).then(() => 'git done')])).toBe('git done');
  });

  it('fails as data outside a repository and for a missing directory', async () => {
    const empty = await tempDir('loop-not-a-repo-');
    expect(await git(empty).tryRaw(['rev-parse', 'HEAD'])).toBeNull();
    await expect(git(`${empty}/missing`).raw(['status'])).rejects.toBeInstanceOf(GitCommandError);
  });
});
