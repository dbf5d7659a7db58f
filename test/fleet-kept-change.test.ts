/**
 * A fleet's escalated change away from the worktree that holds it (real git):
 * the tick's capture re-creates it whole on a disk that lost it, and refuses
 * (fail closed) when it cannot — binary files not carried, a base commit the
 * clone lacks.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { WorktreeStore } from '../src/adapters/workspace/git-worktree-store.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { cleanupTempDirs, makeRepo, sh, tempDir } from './git-fixtures.js';
import { captureKeptChange, ensureKeptChange } from '../src/fleet/kept-change.js';

afterAll(cleanupTempDirs);

const clock = new FixedClock('2026-11-23T08:00:00Z');

/** A repository whose tick `tick-1` kept an escalated change: src/example.ts edited, docs/new.md added, README.md deleted (plus `extra`). */
async function escalated(extra: Record<string, string | Buffer> = {}) {
  const root = await makeRepo();
  const location = { root, worktreesDir: await tempDir('kept-worktrees-'), clock };
  const workspace = new GitWorkspace({ root, patternId: 'daily-triage', clock, worktreesDir: location.worktreesDir });
  const prepared = await workspace.prepare({ tickId: 'tick-1', patternId: 'daily-triage', item: { key: 'mock#1', title: 'Fix the answer' } as never, branchPrefix: 'loop/daily-triage/', baseBranch: null });
  if (!prepared.ok) throw new Error(prepared.message);
  const { handle } = prepared;
  await workspace.files(handle).write('src/example.ts', 'export const answer = 43;\n');
  await workspace.files(handle).write('docs/new.md', '# new\n');
  await workspace.files(handle).remove?.('README.md');
  for (const [path, content] of Object.entries(extra)) await writeFile(join(handle.path, path), content);
  await workspace.keep(handle, 'gate: denylist');
  return { root, location, workspace, handle };
}

/** The worker that kept it is gone, and its disk with it. */
function loseDisk(root: string, path: string, branch: string): void {
  sh(root, ['worktree', 'remove', '--force', path]);
  sh(root, ['branch', '-D', branch]);
}

describe('a kept change away from its worktree', () => {
  it('is captured whole and re-created on a disk that lost it: same files, same branch and base, waiting again', async () => {
    const { root, location, workspace, handle } = await escalated();
    const change = await captureKeptChange(location, 'tick-1', 'worker-a');
    expect(change).toMatchObject({ id: handle.id, itemKey: 'mock#1', itemTitle: 'Fix the answer', branch: handle.branch, baseCommit: handle.baseCommit, reason: 'gate: denylist', keptBy: 'worker-a', binary: [] });
    expect(change!.files).toEqual({ 'src/example.ts': 'export const answer = 43;\n', 'docs/new.md': '# new\n', 'README.md': null });
    const before = await workspace.changes(handle);

    loseDisk(root, handle.path, handle.branch);
    expect(await ensureKeptChange(location, change!, 'worker-b')).toBe('recreated');
    const after = await workspace.changes(handle);
    expect(after.ok && after.changes.files).toEqual(before.ok && before.changes.files);
    expect(sh(root, ['rev-parse', handle.branch]).trim()).toBe(handle.baseCommit);
    const entry = (await new WorktreeStore(root, location.worktreesDir).read()).worktrees.filter((candidate) => candidate.id === handle.id);
    expect(entry).toEqual([expect.objectContaining({ status: 'escalated', tickId: 'tick-1', itemKey: 'mock#1', baseCommit: handle.baseCommit })]);
    // Held now: a second decision's check changes nothing.
    expect(await ensureKeptChange(location, change!, 'worker-b')).toBe('held');
  });

  it('fails closed: binary files are not carried, a base commit the clone lacks cannot be re-created; both keep the change where it is', async () => {
    const { root, location, handle } = await escalated({ 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]) });
    const change = (await captureKeptChange(location, 'tick-1', 'worker-a'))!;
    expect(change.binary).toEqual(['logo.png']);
    // Its own disk holds it: nothing to re-create, nothing refused.
    expect(await ensureKeptChange(location, change, 'worker-a')).toBe('held');

    loseDisk(root, handle.path, handle.branch);
    await expect(ensureKeptChange(location, change, 'worker-b')).rejects.toMatchObject({ code: 'WORKSPACE_FAILED', message: expect.stringContaining('binary files (logo.png) were not carried') });
    const textOnly = { ...change, binary: [], baseCommit: 'f'.repeat(40) };
    await expect(ensureKeptChange(location, textOnly, 'worker-b')).rejects.toMatchObject({ code: 'WORKSPACE_FAILED', fix: expect.stringContaining(`git -C ${root} fetch`) });
    expect(sh(root, ['branch', '--list', handle.branch]).trim()).toBe('');
  });

  it('captures nothing for a tick that kept no change', async () => {
    const { location } = await escalated();
    expect(await captureKeptChange(location, 'tick-2', 'worker-a')).toBeNull();
  });
});
