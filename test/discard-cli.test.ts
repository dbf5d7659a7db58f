/**
 * `loop-runtime discard <id>` through the built CLI in real git repositories: a verified local proposal (its branch
 * checked out in its worktree, so `git branch -D` alone fails) and an escalated change are removed — worktree and
 * branch — and recorded; the item is then proposed again. An unknown id and a change with an open pull request are
 * refused with what to do instead.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnvelope, cliJson } from './cli-json.js';
import { runCli } from './e2e-fixtures.js';
import { cleanupTempDirs, makeRepo, sh } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const LOOP_MD = '---\nloop-runtime:\n  backend: mock\n  verify:\n    - "true"\n  loops:\n    daily-triage: {}\n---\n# Loops\n';
const ESCALATING = '---\nloop-runtime:\n  backend: mock\n  backendOptions:\n    targetPath: .env\n  verify:\n    - "true"\n  loops:\n    daily-triage: {}\n---\n# Loops\n';
const FILES = { 'src/example.ts': 'export const answer = 42;\n' };

type Tick = { kind: string; commit?: { sha: string; branch: string } };
const tick = async (root: string): Promise<Tick> => (cliJson((await runCli(root, ['run', 'daily-triage', '--level', 'L2', '--json'])).stdout) as { ticks: Tick[] }).ticks[0]!;
const hasBranch = (root: string, branch: string) => sh(root, ['branch', '--list', branch]).trim() !== '';

describe('discard <id>', () => {
  it('a verified local proposal: worktree and branch removed, recorded discarded, and the item may be proposed again', async () => {
    const root = await makeRepo({ ...FILES, 'LOOP.md': LOOP_MD });
    const proposed = await tick(root);
    expect(proposed.kind).toBe('proposed');
    const branch = proposed.commit!.branch;
    // The twin before the discard: the open proposal blocks the item, and plain git cannot drop the branch.
    expect((await tick(root)).kind).not.toBe('proposed');
    expect(sh(root, ['worktree', 'list', '--porcelain'])).toContain(`branch refs/heads/${branch}`);

    const discarded = await runCli(root, ['discard', branch, '--json']);
    expect(discarded.code, discarded.stdout + discarded.stderr).toBe(0);
    expect(cliJson(discarded.stdout)).toMatchObject({ status: 'discarded', branch, pattern: 'daily-triage', was: 'proposed', commit: proposed.commit!.sha });
    expect(hasBranch(root, branch)).toBe(false);
    expect(sh(root, ['worktree', 'list', '--porcelain'])).not.toContain(`refs/heads/${branch}`);
    const outcomes = (await readFile(join(root, '.loop-runtime', 'outcomes.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(outcomes).toContainEqual(expect.objectContaining({ type: 'observation', commit: proposed.commit!.sha, state: 'discarded', via: 'human' }));
    expect(await readFile(join(root, 'loop-run-log.md'), 'utf8')).toContain('human-discarded');

    expect((await tick(root)).kind).toBe('proposed');
  }, 120_000);

  it('an escalated change, by the id inbox shows (the same path as reject)', async () => {
    const root = await makeRepo({ ...FILES, 'LOOP.md': ESCALATING });
    expect((await tick(root)).kind).toBe('escalated');
    const [item] = (cliJson((await runCli(root, ['inbox', '--json'])).stdout) as { items: Array<{ id: string; branch: string }> }).items;
    const text = await runCli(root, ['discard', item!.id]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(`Discarded the escalated change ${item!.id} (daily-triage): ${item!.branch} and its worktree are removed; the loop may propose the item again.`);
    expect(hasBranch(root, item!.branch)).toBe(false);
    expect((cliJson((await runCli(root, ['inbox', '--json'])).stdout) as { items: unknown[] }).items).toEqual([]);
  }, 120_000);

  it('refuses an unknown id and a change with an open pull request, saying what to do', async () => {
    const root = await makeRepo({ ...FILES, 'LOOP.md': LOOP_MD });
    const unknown = await runCli(root, ['discard', 'no-such-change', '--json']);
    expect(unknown.code).toBe(3);
    expect(cliEnvelope(unknown.stdout)).toMatchObject({ ok: false, command: 'discard', error: { code: 'USAGE', message: expect.stringContaining('Nothing is kept under "no-such-change"'), fix: expect.stringContaining('loop-runtime inbox') } });

    const proposed = await tick(root);
    const branch = proposed.commit!.branch;
    // The proposal as a pull-request delivery would have written it (no GitHub here): same line, delivered as a pull request.
    const file = join(root, '.loop-runtime', 'outcomes.jsonl');
    const lines = await readFile(file, 'utf8');
    expect(lines).toContain('"delivery":"local"');
    await writeFile(file, lines.replace('"delivery":"local"', '"delivery":"pull-request","url":"https://github.com/acme/app/pull/7"'));
    const refused = await runCli(root, ['discard', branch]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('has an open pull request: https://github.com/acme/app/pull/7');
    expect(refused.stderr).toContain('gh pr close https://github.com/acme/app/pull/7');
    expect(hasBranch(root, branch)).toBe(true);
  }, 120_000);
});
