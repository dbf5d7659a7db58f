import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { changedPaths, type WorkItem } from '../src/core/ports/index.js';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { liveWorktrees } from '../src/adapters/workspace/git-worktree-store.js';
import { worktreesDirFor } from '../src/adapters/workspace/worktrees-location.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { parseManifest } from '../src/core/workspace/worktree-manifest.js';
import { checkDiffIntegrity } from '../src/core/verify/check-diff-integrity.js';
import { parsePatch } from '../src/core/verify/parse-patch.js';
import { cleanupTempDirs, makeRepo, sh, writeFiles } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const item: WorkItem = { key: 'issue#7', title: 'Fix the thing' };
const request = (tickId = 'tick-1') => ({ tickId, patternId: 'ci-sweeper', item, branchPrefix: 'loop/ci-sweeper/', baseBranch: null });
const manifestOf = async (root: string) => parseManifest(await readFile(join(worktreesDirFor(root), 'manifest.json'), 'utf8'));

describe('GitWorkspace', () => {
  it('works in its own worktree from the base commit; the dirty main worktree stays as it was', async () => {
    const root = await makeRepo();
    await writeFile(join(root, 'README.md'), '# demo\nuncommitted human edit\n');
    await writeFile(join(root, 'notes.txt'), 'untracked human notes\n');
    const statusBefore = sh(root, ['status', '--porcelain']);
    const head = sh(root, ['rev-parse', 'HEAD']).trim();

    const workspace = new GitWorkspace({ root, patternId: 'ci-sweeper', clock: new FixedClock('2026-05-01T10:00:00Z') });
    await workspace.recover();
    const prepared = await workspace.prepare(request());
    expect(prepared.ok).toBe(true);
    if (!prepared.ok) return;
    const { handle } = prepared;
    expect(handle.path).toBe(join(worktreesDirFor(root), handle.id));
    expect(handle.branch).toBe(`loop/ci-sweeper/${handle.id}`);
    expect(handle.baseCommit).toBe(head);
    // The human's uncommitted edit is not in the worktree: it starts from the commit.
    expect(await readFile(join(handle.path, 'README.md'), 'utf8')).toBe('# demo\n');

    await workspace.files(handle).write('src/example.ts', 'export const answer = 43;\n');
    const changes = await workspace.changes(handle);
    expect(changes.ok && changes.changes.files).toEqual([{ path: 'src/example.ts', status: 'modified', binary: false }]);
    const committed = await workspace.commit(handle, {
      message: 'ci-sweeper: fix\n\nWhy: issue#7',
      trailers: { 'Loop-Pattern': 'ci-sweeper', 'Loop-Tick': 'tick-1', 'Loop-Tokens': '1234' },
      author: { name: 'Loop Bot', email: 'bot@example.test' },
    });
    expect(committed.ok).toBe(true);
    const log = sh(root, ['log', '-1', '--format=%an <%ae>%n%B', handle.branch]);
    expect(log).toContain('Loop Bot <bot@example.test>');
    expect(sh(root, ['log', '-1', '--format=%(trailers:key=Loop-Pattern,valueonly)', handle.branch]).trim()).toBe('ci-sweeper');
    expect(sh(root, ['log', '-1', '--format=%(trailers:key=Loop-Tokens,valueonly)', handle.branch]).trim()).toBe('1234');

    // Main worktree: same status, same bytes, same HEAD; the worktrees directory is excluded, not listed.
    expect(sh(root, ['status', '--porcelain'])).toBe(statusBefore);
    expect(await readFile(join(root, 'README.md'), 'utf8')).toBe('# demo\nuncommitted human edit\n');
    expect(sh(root, ['rev-parse', 'HEAD']).trim()).toBe(head);
    expect((await manifestOf(root)).worktrees[0]).toMatchObject({ id: handle.id, status: 'merged', pattern: 'ci-sweeper', baseBranch: 'main', branch: handle.branch });
  });

  it('reports renames, deletes, binary, new and ignored files from git, not from the agent', async () => {
    const root = await makeRepo({
      'docs/old-name.md': 'line one\nline two\nline three\nline four\n',
      'src/gone.ts': 'export {};\n',
      'src/keep.ts': 'export const keep = 1;\n',
      '.gitignore': 'secrets.local\n',
    });
    const workspace = new GitWorkspace({ root, patternId: 'ci-sweeper', clock: new FixedClock('2026-05-01T10:00:00Z') });
    const prepared = await workspace.prepare(request());
    if (!prepared.ok) throw new Error(prepared.message);
    const { handle } = prepared;
    sh(handle.path, ['mv', 'docs/old-name.md', 'docs/new-name.md']);
    await unlink(join(handle.path, 'src/gone.ts'));
    await writeFiles(handle.path, { 'assets/logo.bin': Buffer.from([0, 1, 2, 0, 255, 0]), 'src/new.ts': 'export const fresh = 1;\n', 'secrets.local': 'TOKEN=x\n' });
    const changes = await workspace.changes(handle);
    if (!changes.ok) throw new Error(changes.message);
    expect(changes.changes.files).toEqual([
      { path: 'assets/logo.bin', status: 'added', binary: true },
      { path: 'docs/new-name.md', status: 'renamed', from: 'docs/old-name.md', binary: false },
      { path: 'secrets.local', status: 'untracked', binary: false },
      { path: 'src/gone.ts', status: 'deleted', binary: false },
      { path: 'src/new.ts', status: 'added', binary: false },
    ]);
    expect(changedPaths(changes.changes)).toContain('docs/old-name.md');
    expect(changes.changes.patch).toContain('diff --git a/src/gone.ts b/src/gone.ts');
    // git's own dialect — `rename from`, `Binary files … differ`, `deleted file mode` — reads through jsdiff.
    expect(changes.changes.patch).toMatch(/^rename from docs\/old-name\.md$/m);
    expect(changes.changes.patch).toMatch(/^Binary files \/dev\/null and b\/assets\/logo\.bin differ$/m);
    const reading = parsePatch(changes.changes.patch);
    if (!reading.ok) throw new Error(reading.message);
    expect(reading.files.map(({ path, oldPath, binary }) => ({ path, oldPath, binary }))).toEqual([
      { path: 'assets/logo.bin', oldPath: null, binary: true },
      { path: 'docs/new-name.md', oldPath: 'docs/old-name.md', binary: false },
      { path: 'src/gone.ts', oldPath: 'src/gone.ts', binary: false },
      { path: 'src/new.ts', oldPath: null, binary: false },
    ]);
    expect(reading.files.find((file) => file.path === 'src/gone.ts')?.removed).toEqual(['export {};']);
  });

  it('produces the same patch shape whatever the user configured: no prefix, external diff, textconv, colour', async () => {
    const root = await makeRepo({ 'src/a.test.ts': "it('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n", '.gitattributes': '*.ts diff=hide\n' });
    for (const [key, value] of [
      ['diff.noprefix', 'true'],
      ['diff.mnemonicPrefix', 'true'],
      ['diff.external', 'false'],
      ['diff.hide.textconv', 'sh -c "echo hidden"'],
      ['color.diff', 'always'],
      ['core.quotePath', 'false'],
    ]) {
      sh(root, ['config', key!, value!]);
    }
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock() });
    const prepared = await workspace.prepare(request());
    if (!prepared.ok) throw new Error(prepared.message);
    await workspace.files(prepared.handle).write('src/a.test.ts', "it.skip('adds', () => {\n});\n");
    const changes = await workspace.changes(prepared.handle);
    if (!changes.ok) throw new Error(changes.message);
    expect(changes.changes.patch).toContain('--- a/src/a.test.ts\n+++ b/src/a.test.ts\n');
    expect(new Set(checkDiffIntegrity(changes.changes, { protectedPaths: [] }).map((finding) => finding.kind))).toEqual(new Set(['assertion-removed', 'skip-marker-added']));
  });

  it('confines file access to the worktree', async () => {
    const root = await makeRepo();
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock() });
    const prepared = await workspace.prepare(request());
    if (!prepared.ok) throw new Error(prepared.message);
    const files = workspace.files(prepared.handle);
    await expect(files.write('../escape.txt', 'x')).rejects.toThrow(/climbs out/);
    await expect(files.write('/tmp/abs.txt', 'x')).rejects.toThrow(/absolute/);
    await expect(files.write('.git/config', 'x')).rejects.toThrow(/git's own files/);
    await symlink(root, join(prepared.handle.path, 'outside'));
    await expect(files.write('outside/pwned.txt', 'x')).rejects.toThrow(/symbolic link/);
    await expect(files.read('outside/README.md')).rejects.toThrow(/symbolic link/);
    expect(existsSync(join(root, 'pwned.txt'))).toBe(false);
    expect(await files.read('src/missing.ts')).toBeNull();
    await files.write('deep/new/dir/file.txt', 'ok\n');
    expect(await files.read('deep/new/dir/file.txt')).toBe('ok\n');
  });

  it('discard deletes the branch and parks the worktree for reuse; the next attempt reuses it clean', async () => {
    const root = await makeRepo();
    const clock = new FixedClock('2026-05-01T10:00:00Z', 1000);
    const workspace = new GitWorkspace({ root, patternId: 'p', clock });
    const first = await workspace.prepare(request('tick-1'));
    if (!first.ok) throw new Error(first.message);
    await writeFiles(first.handle.path, { 'junk.txt': 'junk\n', 'src/example.ts': 'changed\n' });
    await workspace.discard(first.handle);
    expect(sh(root, ['branch', '--list', first.handle.branch]).trim()).toBe('');
    expect(existsSync(first.handle.path)).toBe(false);
    const manifest = await manifestOf(root);
    expect(manifest.pool).toHaveLength(1);
    expect(manifest.worktrees[0]).toMatchObject({ status: 'rejected', released: true });

    const second = await workspace.prepare(request('tick-2'));
    if (!second.ok) throw new Error(second.message);
    expect(second.handle.id).not.toBe(first.handle.id);
    expect((await manifestOf(root)).pool).toHaveLength(0);
    expect(existsSync(join(second.handle.path, 'junk.txt'))).toBe(false);
    expect(await readFile(join(second.handle.path, 'src/example.ts'), 'utf8')).toBe('export const answer = 42;\n');
    expect(sh(second.handle.path, ['symbolic-ref', '--short', 'HEAD']).trim()).toBe(second.handle.branch);
    const changes = await workspace.changes(second.handle);
    expect(changes.ok && changes.changes.files).toEqual([]);
  });

  it('reuses a pooled worktree at an older base: reset to the new base', async () => {
    const root = await makeRepo();
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock('2026-05-01T10:00:00Z', 1000) });
    const first = await workspace.prepare(request('tick-1'));
    if (!first.ok) throw new Error(first.message);
    await workspace.discard(first.handle);
    await writeFiles(root, { 'src/later.ts': 'export const later = 1;\n' });
    sh(root, ['add', 'src/later.ts']);
    sh(root, ['commit', '--quiet', '-m', 'later']);
    const second = await workspace.prepare(request('tick-2'));
    if (!second.ok) throw new Error(second.message);
    expect(second.handle.baseCommit).toBe(sh(root, ['rev-parse', 'HEAD']).trim());
    expect(await readFile(join(second.handle.path, 'src/later.ts'), 'utf8')).toBe('export const later = 1;\n');
    const changes = await workspace.changes(second.handle);
    expect(changes.ok && changes.changes.files).toEqual([]);
  });

  it("a committed attempt's worktree and a crashed one's come back for the next attempts at the base, nothing of theirs left", async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', '.gitignore': 'build/\n' });
    const base = sh(root, ['rev-parse', 'HEAD']).trim();
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock('2026-05-01T10:00:00Z', 1000) });
    const leaveJunk = (path: string) => writeFiles(path, { 'src/example.ts': 'export const answer = 43;\n', 'junk.txt': 'junk\n', 'build/out.js': 'stale build\n' });
    const committed = await workspace.prepare(request('tick-1'));
    if (!committed.ok) throw new Error(committed.message);
    await leaveJunk(committed.handle.path);
    await workspace.changes(committed.handle);
    const commit = await workspace.commit(committed.handle, { message: 'fix', trailers: {}, author: { name: 'T', email: 't@example.com' } });
    if (!commit.ok) throw new Error(commit.message);
    await writeFiles(committed.handle.path, { 'build/after.js': 'written after the commit\n', 'more-junk.txt': 'junk\n' });
    // A tick that crashed after its agent committed inside the worktree and left files of every kind.
    const crashed = await workspace.prepare(request('tick-2'));
    if (!crashed.ok) throw new Error(crashed.message);
    await leaveJunk(crashed.handle.path);
    sh(crashed.handle.path, ['add', '--all']);
    sh(crashed.handle.path, ['commit', '--quiet', '-m', 'the agent committed']);
    await writeFiles(crashed.handle.path, { 'junk.txt': 'junk again\n', 'build/out.js': 'stale build\n' });
    liveWorktrees.delete(crashed.handle.id);

    await workspace.recover();
    // Parked at the base: the next attempts only switch a branch, so the reset must have happened here.
    expect((await manifestOf(root)).pool.map((slot) => [slot.head, slot.clean])).toEqual([[base, true], [base, true]]);
    for (const tickId of ['tick-3', 'tick-4']) {
      const next = await workspace.prepare(request(tickId));
      if (!next.ok) throw new Error(next.message);
      expect([committed.handle.path, crashed.handle.path]).not.toContain(next.handle.path);
      expect(sh(next.handle.path, ['rev-parse', 'HEAD']).trim()).toBe(base);
      expect(sh(next.handle.path, ['symbolic-ref', '--short', 'HEAD']).trim()).toBe(next.handle.branch);
      expect(sh(next.handle.path, ['status', '--porcelain', '--ignored', '--untracked-files=all'])).toBe('');
      expect(await readFile(join(next.handle.path, 'src/example.ts'), 'utf8')).toBe('export const answer = 42;\n');
    }
    // The twin: the committed work itself is kept on its branch; the crashed attempt's branch is gone.
    expect(sh(root, ['show', `${committed.handle.branch}:src/example.ts`])).toBe('export const answer = 43;\n');
    expect(sh(root, ['branch', '--list', crashed.handle.branch]).trim()).toBe('');
  });

  it("commits the reviewed tree with the message as written (cleaned like --cleanup=whitespace): the repository's commit hooks neither rewrite it nor run", async () => {
    const root = await makeRepo();
    const marker = join(root, 'post-commit-ran');
    // A prepare-commit-msg hook that replaces the message, and a post-commit hook that leaves a mark.
    await writeFiles(join(root, '.git', 'hooks'), {
      'prepare-commit-msg': '#!/bin/sh\necho "rewritten by a hook" > "$1"\n',
      'post-commit': `#!/bin/sh\ntouch ${JSON.stringify(marker)}\n`,
    });
    sh(root, ['config', 'core.hooksPath', join(root, '.git', 'hooks')]);
    execFileSync('chmod', ['+x', join(root, '.git', 'hooks', 'prepare-commit-msg'), join(root, '.git', 'hooks', 'post-commit')]);
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock() });
    const prepared = await workspace.prepare(request());
    if (!prepared.ok) throw new Error(prepared.message);
    await writeFiles(prepared.handle.path, { 'src/example.ts': 'export const answer = 43;\n' });
    const changes = await workspace.changes(prepared.handle);
    if (!changes.ok) throw new Error(changes.message);
    const committed = await workspace.commit(prepared.handle, { message: '\nfix: the answer  \n\n\n\nWhy: it was off by one\t\n', trailers: { 'Loop-Pattern': 'p' }, author: { name: 'Loop Bot', email: 'bot@example.test' } });
    if (!committed.ok) throw new Error(committed.message);
    expect(sh(root, ['rev-parse', prepared.handle.branch]).trim()).toBe(committed.commit.sha);
    expect(sh(root, ['log', '-1', '--format=%B%an <%ae> / %cn', committed.commit.sha])).toBe('fix: the answer\n\nWhy: it was off by one\n\nLoop-Pattern: p\nLoop Bot <bot@example.test> / Loop Bot\n');
    expect(sh(root, ['rev-parse', `${committed.commit.sha}^`]).trim()).toBe(prepared.handle.baseCommit);
    expect(sh(prepared.handle.path, ['status', '--porcelain'])).toBe('');
    expect(existsSync(marker)).toBe(false);
    // The twin: the same hooks are live for a commit made by hand.
    sh(root, ['commit', '--quiet', '--allow-empty', '-m', 'by hand']);
    expect(sh(root, ['log', '-1', '--format=%s']).trim()).toBe('rewritten by a hook');
    expect(existsSync(marker)).toBe(true);
  });

  it('keep marks the worktree escalated and leaves it in place; a configured base branch is used', async () => {
    const root = await makeRepo();
    sh(root, ['checkout', '--quiet', '-b', 'feature']);
    await writeFiles(root, { 'feature.txt': 'feature\n' });
    sh(root, ['add', '--all']);
    sh(root, ['commit', '--quiet', '-m', 'feature work']);
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock() });
    const prepared = await workspace.prepare({ ...request(), baseBranch: 'main' });
    if (!prepared.ok) throw new Error(prepared.message);
    expect(prepared.handle.baseCommit).toBe(sh(root, ['rev-parse', 'main']).trim());
    expect(existsSync(join(prepared.handle.path, 'feature.txt'))).toBe(false);
    await workspace.keep(prepared.handle, 'denylisted path');
    await workspace.recover();
    expect(existsSync(prepared.handle.path)).toBe(true);
    expect((await manifestOf(root)).worktrees[0]).toMatchObject({ status: 'escalated', reason: 'denylisted path', baseBranch: 'main' });
    const missing = await workspace.prepare({ ...request(), baseBranch: 'nope' });
    expect(missing.ok).toBe(false);
  });

  it('recover prunes a missing directory, an orphan directory, a corrupt manifest and a dead active entry', async () => {
    const root = await makeRepo();
    const clock = new FixedClock('2026-05-01T10:00:00Z', 1000);
    const workspace = new GitWorkspace({ root, patternId: 'p', clock });
    const kept = await workspace.prepare(request('tick-1'));
    if (!kept.ok) throw new Error(kept.message);
    await workspace.keep(kept.handle, 'needs a human');
    await rm(kept.handle.path, { recursive: true, force: true });
    await writeFiles(worktreesDirFor(root), { 'orphan/file.txt': 'left behind\n' });
    const manifestPath = join(worktreesDirFor(root), 'manifest.json');
    const manifest = await manifestOf(root);
    manifest.worktrees.push({ ...manifest.worktrees[0]!, id: 'dead', path: join(worktreesDirFor(root), 'dead'), branch: 'loop/p/dead', status: 'active', pid: 2 ** 22 + 12345, released: false });
    await writeFile(manifestPath, JSON.stringify(manifest));
    await workspace.recover();
    const after = await manifestOf(root);
    expect(after.worktrees.map((entry) => [entry.id, entry.status])).toEqual([
      [kept.handle.id, 'stale'],
      ['dead', 'stale'],
    ]);
    expect(existsSync(join(worktreesDirFor(root), 'orphan'))).toBe(false);
    expect(sh(root, ['branch', '--list', kept.handle.branch]).trim()).toBe('');

    await writeFile(manifestPath, '{"version": 1, "worktrees": [ this is not json');
    await workspace.recover();
    const next = await workspace.prepare(request('tick-2'));
    expect(next.ok).toBe(true);
  });
});
