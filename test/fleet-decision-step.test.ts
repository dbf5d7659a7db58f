/**
 * The approval workflow's decision step on a worker whose disk does not hold
 * the change (real git, real project files, no database: the step is a plain
 * call here). A rejection records the decision and discards nothing; an
 * approval it cannot re-create whole is an error reply, and the change keeps
 * waiting; an approval it can re-create is applied and recorded.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { actOnDecision, serveApprovals } from '../src/fleet/approval-workflow.js';
import type { KeptChange } from '../src/fleet/approval-types.js';
import { captureKeptChange } from '../src/fleet/kept-change.js';
import { loadProject } from '../src/project/load-project.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { makeLoopRepo, runLogLines } from './e2e-fixtures.js';
import { cleanupTempDirs, sh, tempDir } from './git-fixtures.js';
import { outcomeStoreFor } from '../src/composition/stores/file-stores.js';

afterAll(async () => {
  serveApprovals(null);
  await cleanupTempDirs();
});

const clock = new FixedClock('2026-11-26T09:30:00Z');

/** A loop repository whose tick `tick-1` kept a change on "worker-a", captured, then lost with worker-a's disk. */
async function lostChange(files: Record<string, string>): Promise<{ repo: string; change: KeptChange; notes: string[] }> {
  const worktreesDir = await tempDir('decision-worktrees-');
  const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { backend: 'mock', level: 'L2', verify: ['true'], delivery: { mode: 'local' }, worktreesDir });
  const workspace = new GitWorkspace({ root: repo, patternId: 'daily-triage', clock, worktreesDir });
  const prepared = await workspace.prepare({ tickId: 'tick-1', patternId: 'daily-triage', item: { key: 'mock#1', title: 'Fix the answer' } as never, branchPrefix: 'loop/daily-triage/', baseBranch: null });
  if (!prepared.ok) throw new Error(prepared.message);
  for (const [path, text] of Object.entries(files)) await workspace.files(prepared.handle).write(path, text);
  await workspace.keep(prepared.handle, 'gate: denylist');
  const change = (await captureKeptChange({ root: repo, worktreesDir, clock }, 'tick-1', 'worker-a'))!;
  sh(repo, ['worktree', 'remove', '--force', prepared.handle.path]);
  sh(repo, ['branch', '-D', prepared.handle.branch]);
  const loaded = await loadProject(repo);
  if (!loaded.ok) throw new Error('project did not load');
  const notes: string[] = [];
  serveApprovals(async () => ({
    project: loaded.project,
    clock,
    env: {},
    deliveryLedger: undefined,
    outcomes: outcomeStoreFor(loaded.project.root),
    history: { recordDecision: async (_tickId, decision) => (notes.push(decision.note), true) },
    worker: 'worker-b',
  }));
  return { repo, change, notes };
}

describe('the decision step on a worker without the change', () => {
  it('reject: records the decision, discards nothing here', async () => {
    const { repo, change, notes } = await lostChange({ 'src/example.ts': 'export const answer = 43;\n' });
    const { reply } = await actOnDecision({ scope: 'acme/demo', change }, { requestId: 'r1', decision: 'reject', yes: false });
    expect(reply).toEqual({ ok: true, result: { status: 'rejected', id: change.id, pattern: 'daily-triage', branch: change.branch } });
    expect(notes).toEqual([`${change.id}: rejected by a human; ${change.branch} was kept by worker-a, nothing to discard on worker-b`]);
    expect((await runLogLines(repo)).filter((line) => line['kind'] === 'human-rejected')).toEqual([expect.objectContaining({ run_id: '2026-11-26T09:30:00Z', tick_id: 'tick-1' })]);
    expect(await readFile(join(repo, 'STATE.md'), 'utf8')).toContain('was kept by worker-a, not on worker-b: nothing to discard here');
  });

  it('approve: a change it cannot re-create whole is an error reply (nothing applied); one it can is committed', async () => {
    const { repo, change, notes } = await lostChange({ 'src/example.ts': 'export const answer = 43;\n' });
    const missingBase = await actOnDecision({ scope: 'acme/demo', change: { ...change, baseCommit: 'f'.repeat(40) } }, { requestId: 'r1', decision: 'approve', yes: true });
    expect(missingBase.reply).toMatchObject({ ok: false, error: { code: 'WORKSPACE_FAILED', message: expect.stringContaining('is not in'), fix: expect.stringContaining('fetch') } });
    expect(notes).toEqual([]);

    const { reply } = await actOnDecision({ scope: 'acme/demo', change }, { requestId: 'r2', decision: 'approve', yes: true });
    expect(reply).toMatchObject({ ok: true, result: { status: 'applied', id: change.id, paths: ['src/example.ts'] } });
    const commit = reply.ok && reply.result.status === 'applied' ? reply.result.commit : '';
    expect(sh(repo, ['log', '-1', '--format=%(trailers:key=Loop-Approved-By,valueonly)', change.branch]).trim()).toBe('human');
    expect(notes).toEqual([`${change.id}: approved by a human; committed ${commit.slice(0, 12)} on ${change.branch}`]);
  });
});
