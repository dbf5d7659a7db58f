/**
 * The git passes a second tick on an unchanged base no longer repeats (issue 28), each held to what the pass it
 * replaces guaranteed, with its twin where the pass still runs:
 * - commit() after restoreGatedTree compared the worktree with the reviewed tree records that tree without
 *   comparing again: what is written later is not in the commit; without that comparison, or after a write
 *   through the port, the commit compares and refuses;
 * - recover() checks the pool slots parked before it against git's worktree list read once; the worktree it parks
 *   itself is kept, and a slot git forgot or whose directory is gone is dropped, never handed out;
 * - resolveBase reads the commit and the branch in one process, naming the branch as `symbolic-ref --short` does;
 * - the repository's `post-checkout` and `reference-transaction` hooks run in none of a tick's worktree and branch
 *   moves (add, park, switch, reset to another base, reset after a baseline run, commit, branch deleted), while plain git runs them (the twin).
 */
import { existsSync } from 'node:fs';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WorkItem, WorkspaceHandle } from '../src/core/ports/index.js';
import { git, NO_HOOKS } from '../src/adapters/git/git-run.js';
import { gitRunner } from '../src/adapters/state-branch/state-branch-git.js';
import { GitWorkspace, resolveBase } from '../src/adapters/workspace/git-workspace.js';
import { worktreesDirFor } from '../src/adapters/workspace/worktrees-location.js';
import { parseManifest } from '../src/core/workspace/worktree-manifest.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { cleanupTempDirs, makeRepo, sh, tempDir } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const item: WorkItem = { key: 'issue#28', title: 'The second tick' };
const request = (tickId: string) => ({ tickId, patternId: 'p', item, branchPrefix: 'loop/p/', baseBranch: null });
const author = { name: 'T', email: 't@example.com' };
const BASE = { 'src/example.ts': 'export const answer = 42;\n', '.gitignore': 'build/\n' };

async function attempt(workspace: GitWorkspace, tickId: string): Promise<WorkspaceHandle> {
  const prepared = await workspace.prepare(request(tickId));
  if (!prepared.ok) throw new Error(prepared.message);
  return prepared.handle;
}

/** Paths the branch's commit changed against the base. */
const committedPaths = (root: string, handle: WorkspaceHandle) => sh(root, ['diff', '--name-only', handle.baseCommit, handle.branch]).trim().split('\n').filter(Boolean);

describe('commit() after restoreGatedTree', () => {
  it('records the reviewed tree without a second comparison: a file written after the verification is not in the commit', async () => {
    const root = await makeRepo(BASE);
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock('2026-11-27T10:00:00Z') });
    const handle = await attempt(workspace, 'tick-1');
    await workspace.files(handle).write('src/example.ts', 'export const answer = 43;\n');
    expect(await workspace.changes(handle)).toMatchObject({ ok: true });
    // What a verification run may leave: a source rewritten (put back by the restore) and an ignored output.
    await writeFile(join(handle.path, 'src/example.ts'), 'export const answer = 0; // by the run\n');
    await writeFile(join(handle.path, 'stray.ts'), 'written by the run\n');
    expect(await workspace.restoreGatedTree(handle)).toMatchObject({ ok: true, written: ['src/example.ts', 'stray.ts'] });
    // Written after the last comparison (outside the port): nobody checked it, and the commit does not hold it.
    await writeFile(join(handle.path, 'late.ts'), 'never checked\n');
    await writeFile(join(handle.path, 'src/example.ts'), 'export const answer = -1;\n');
    const committed = await workspace.commit(handle, { message: 'fix', trailers: {}, author });
    expect(committed).toMatchObject({ ok: true });
    expect(committedPaths(root, handle)).toEqual(['src/example.ts']);
    expect(sh(root, ['show', `${handle.branch}:src/example.ts`])).toBe('export const answer = 43;\n');
  });

  it('without a restore since changes(), or after a write through the port, the commit compares and refuses a late file', async () => {
    const root = await makeRepo(BASE);
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock('2026-11-27T10:00:00Z') });
    const late = async (handle: WorkspaceHandle) => {
      const refused = await workspace.commit(handle, { message: 'fix', trailers: {}, author });
      expect(refused).toMatchObject({ ok: false, reason: 'conflict', message: expect.stringContaining('late.ts') });
      expect(sh(root, ['rev-parse', handle.branch]).trim()).toBe(handle.baseCommit);
    };

    const unrestored = await attempt(workspace, 'tick-1');
    const files = workspace.files(unrestored);
    await files.write('src/example.ts', 'export const answer = 43;\n');
    await workspace.changes(unrestored);
    await writeFile(join(unrestored.path, 'late.ts'), 'never checked\n');
    await late(unrestored);

    const writtenThroughPort = await attempt(workspace, 'tick-2');
    const portFiles = workspace.files(writtenThroughPort);
    await portFiles.write('src/example.ts', 'export const answer = 43;\n');
    await workspace.changes(writtenThroughPort);
    expect(await workspace.restoreGatedTree(writtenThroughPort)).toMatchObject({ ok: true, written: [] });
    await portFiles.write('late.ts', 'never checked\n');
    await late(writtenThroughPort);

    // A restore, then changes() read again: the restore no longer speaks for the tree changes() reviewed.
    const rereadAfterRestore = await attempt(workspace, 'tick-3');
    await workspace.files(rereadAfterRestore).write('src/example.ts', 'export const answer = 43;\n');
    await workspace.changes(rereadAfterRestore);
    await workspace.restoreGatedTree(rereadAfterRestore);
    await workspace.changes(rereadAfterRestore);
    await writeFile(join(rereadAfterRestore.path, 'late.ts'), 'never checked\n');
    await late(rereadAfterRestore);
  });
});

describe('recover() and the pool', () => {
  const manifestOf = async (root: string) => parseManifest(await readFile(join(worktreesDirFor(root), 'manifest.json'), 'utf8'));

  it('keeps the worktree it parks and an intact older slot; drops a slot whose directory is gone or that git forgot', async () => {
    const root = await makeRepo(BASE);
    const base = sh(root, ['rev-parse', 'HEAD']).trim();
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock('2026-11-27T10:00:00Z', 1000), poolSize: 4 });
    // Four finished attempts: three discarded (parked at once), one committed (parked by the next recover).
    const handles = [];
    for (const tickId of ['tick-1', 'tick-2', 'tick-3', 'tick-4']) handles.push(await attempt(workspace, tickId));
    const [gone, forgotten, intact, committed] = handles as [WorkspaceHandle, WorkspaceHandle, WorkspaceHandle, WorkspaceHandle];
    for (const handle of [gone, forgotten, intact]) await workspace.discard(handle);
    await workspace.files(committed).write('src/example.ts', 'export const answer = 43;\n');
    await workspace.changes(committed);
    expect(await workspace.commit(committed, { message: 'fix', trailers: {}, author })).toMatchObject({ ok: true });
    const parked = (await manifestOf(root)).pool.map((slot) => resolve(root, slot.path));
    expect(parked).toHaveLength(3);
    const [goneSlot, forgottenSlot, intactSlot] = parked as [string, string, string];
    await rm(goneSlot, { recursive: true, force: true });
    // Git no longer knows this one (its registration removed), though its directory is still there.
    const gitdir = /^gitdir:\s*(.+)$/m.exec(await readFile(join(forgottenSlot, '.git'), 'utf8'))?.[1];
    await rm(gitdir!.trim(), { recursive: true, force: true });

    await workspace.recover();
    const pool = (await manifestOf(root)).pool;
    const pooled = pool.map((slot) => resolve(root, slot.path));
    expect(pooled).toHaveLength(2);
    expect(pooled[0]).toBe(intactSlot);
    expect(pool.every((slot) => slot.head === base && slot.clean)).toBe(true);
    expect(existsSync(forgottenSlot)).toBe(false);
    const registered = sh(root, ['worktree', 'list', '--porcelain']);
    for (const path of pooled) expect(registered).toContain(`worktree ${path}\n`);
    expect(registered).not.toContain(goneSlot);

    // Both slots handed out are at the base with nothing of an attempt's change, the committed one's included.
    for (const tickId of ['tick-5', 'tick-6']) {
      const next = await attempt(workspace, tickId);
      expect(sh(next.path, ['rev-parse', 'HEAD']).trim()).toBe(base);
      expect(sh(next.path, ['status', '--porcelain', '--ignored', '--untracked-files=all'])).toBe('');
      expect(await readFile(join(next.path, 'src/example.ts'), 'utf8')).toBe(BASE['src/example.ts']);
    }
    expect((await manifestOf(root)).pool).toEqual([]);
  });
});

describe('resolveBase with no base branch named', () => {
  it("names HEAD's commit and its branch as symbolic-ref --short does; detached, no branch; no commit, a clear error", async () => {
    const root = await makeRepo({ ...BASE, HEAD: 'a file named like the ref\n' });
    const head = () => sh(root, ['rev-parse', 'HEAD']).trim();
    const cases: Array<[string, () => void]> = [
      ['main', () => undefined],
      ['feature/x-1', () => sh(root, ['checkout', '--quiet', '-b', 'feature/x-1'])],
      // A tag of the same name: the short name must stay unambiguous.
      ['heads/release', () => (sh(root, ['checkout', '--quiet', '-b', 'release']), sh(root, ['tag', 'release']))],
    ];
    for (const [name, arrange] of cases) {
      arrange();
      expect(sh(root, ['symbolic-ref', '--short', 'HEAD']).trim()).toBe(name);
      expect(await resolveBase(root, null)).toEqual({ commit: head(), branch: name });
    }
    sh(root, ['checkout', '--quiet', '--detach']);
    expect(await resolveBase(root, null)).toEqual({ commit: head(), branch: null });

    const unborn = await tempDir('loop-unborn-');
    sh(unborn, ['init', '--quiet']);
    await expect(resolveBase(unborn, null)).rejects.toThrow(/not a git repository with at least one commit\. To fix: /);
  });
});

describe("the repository's hooks", () => {
  it('post-checkout and reference-transaction run in none of the worktree and branch moves of a tick; plain git runs them', async () => {
    const root = await makeRepo(BASE);
    const marker = join(await tempDir('loop-hook-'), 'ran');
    for (const hook of ['post-checkout', 'reference-transaction']) {
      await writeFile(join(root, '.git', 'hooks', hook), `#!/bin/sh\necho "${hook} $*" >> '${marker}'\n`);
      await chmod(join(root, '.git', 'hooks', hook), 0o755);
    }
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock('2026-11-27T10:00:00Z', 1000) });
    const added = await attempt(workspace, 'tick-1'); // worktree add
    await workspace.files(added).write('src/example.ts', 'export const answer = 43;\n');
    await workspace.changes(added);
    expect(await workspace.commit(added, { message: 'fix', trailers: {}, author })).toMatchObject({ ok: true });
    await workspace.recover(); // parked: checkout --force at the base
    await workspace.discard(await attempt(workspace, 'tick-2')); // a branch switched in the pool, parked again
    sh(root, ['commit', '--quiet', '--allow-empty', '--no-verify', '-m', 'the base moves']);
    await rm(marker, { force: true }); // that commit is the test's own, and runs the hooks
    const moved = await attempt(workspace, 'tick-3'); // a slot at the old base: checkout -B at the new one
    expect(sh(moved.path, ['rev-parse', 'HEAD']).trim()).toBe(sh(root, ['rev-parse', 'HEAD']).trim());
    await workspace.files(moved).write('junk.txt', 'a baseline run wrote this\n');
    expect(await workspace.resetToBase(moved)).toMatchObject({ ok: true }); // reset --hard after a baseline run
    await workspace.discard(moved); // the branch deleted
    expect(existsSync(marker)).toBe(false);

    // The twin: the hooks are there and run for git commands that do not turn them off.
    const twin = await attempt(workspace, 'tick-4');
    sh(twin.path, ['checkout', '--quiet', '--detach']);
    sh(twin.path, ['update-ref', 'refs/heads/twin', 'HEAD']);
    expect(await readFile(marker, 'utf8')).toMatch(/post-checkout[\s\S]*reference-transaction/);
  });

  it('every git command through the runner and the state branch runs no hook; a caller cannot name a hooks path', async () => {
    const root = await makeRepo(BASE);
    const marker = join(await tempDir('loop-hook-'), 'ran');
    await writeFile(join(root, '.git', 'hooks', 'reference-transaction'), `#!/bin/sh\necho "reference-transaction $*" >> '${marker}'\n`);
    await chmod(join(root, '.git', 'hooks', 'reference-transaction'), 0o755);
    // The delivery's and the fleet's own git calls go through git(): no hook runs, whoever the caller.
    await git(root).raw(['update-ref', 'refs/heads/by-runner', 'HEAD']);
    await gitRunner({ root, files: [] }).run(['update-ref', 'refs/heads/by-state-branch', 'HEAD']);
    expect(existsSync(marker)).toBe(false);
    sh(root, ['update-ref', 'refs/heads/by-plain-git', 'HEAD']); // the twin: the hook is live
    expect(await readFile(marker, 'utf8')).toMatch(/reference-transaction/);

    await expect(git(root).raw(['status', '--porcelain'])).resolves.toBe('');
    await expect(git(root).raw(['-c', 'core.hooksPath=/tmp/hooks', 'status'])).rejects.toThrow(/hooksPath/i);
    await expect(git(root).raw([...NO_HOOKS, 'status'])).rejects.toThrow(/hooksPath/i);
  });
});
