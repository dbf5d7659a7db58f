/**
 * A mock run outside --dry-run writes real state; `reset <id> --mock` removes
 * exactly that (and nothing a real backend or a human wrote), and mock spend
 * never counts against a real backend's cap.
 */
import { existsSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBudgetLedger } from '../../src/adapters/budget-ledger/file-budget-ledger.js';
import { isRehearsalBranch } from '../../src/core/outcomes/rehearsal-backend.js';
import { git, journalLines, loopMarkdown, readText, runCli, runLogLines } from '../e2e-fixtures.js';
import { cleanupTempDirs, makeRepo } from '../git-fixtures.js';
import { cliJson } from '../cli-json.js';

afterAll(cleanupTempDirs);

const DAY = new Date().toISOString().slice(0, 10);

describe('reset <id> --mock', () => {
  it('removes the mock spend, attempts, run-log lines, state blocks and mock branches, and keeps real records', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': loopMarkdown({ backend: 'mock', verify: [], loops: { 'daily-triage': {} } }) });
    const run = await runCli(root, ['run', 'daily-triage', '--level', 'L2', '--json']);
    expect(run.code).toBe(0);
    const mockSpend = (await journalLines(root)).filter((line) => line.kind !== 'open').reduce((sum, line) => sum + line.tokens, 0);
    expect(mockSpend).toBeGreaterThan(0);
    expect((await journalLines(root)).every((line) => (line as { backend?: string }).backend === 'mock')).toBe(true);

    // Mock spend is rehearsal spend: a real backend's cap does not see it; the mock's own does.
    expect(await new FileBudgetLedger({ root, backend: 'claude-code' }).spentOn(DAY, 'daily-triage')).toBe(0);
    expect(await new FileBudgetLedger({ root, backend: 'mock' }).spentOn(DAY, 'daily-triage')).toBe(mockSpend);

    // Real records beside the rehearsal: a real backend's spend, a human's line in STATE.md.
    const real = new FileBudgetLedger({ root, backend: 'claude-code' });
    await real.record({ at: Date.now(), day: DAY, patternId: 'daily-triage', tickId: 'real-1', phase: 'triage', tokens: 777, costUsd: null });
    await appendFile(join(root, 'STATE.md'), '\nHuman note: keep an eye on src/example.ts\n');
    expect(git(root, 'branch', '--list', 'loop/daily-triage/mock-*').trim()).not.toBe('');
    expect(await readText(root, 'STATE.md')).toContain('<!-- loop-runtime:');
    expect((await runLogLines(root)).length).toBe(1);

    const reset = await runCli(root, ['reset', 'daily-triage', '--mock', '--json']);
    expect(reset.code).toBe(0);
    const removed = cliJson(reset.stdout);
    // The run log and the ledger hold only the rehearsal: they come back byte for byte (the ledger did not exist).
    // STATE.md holds a human's line since: only the mock's blocks go.
    expect(removed).toMatchObject({ loop: 'daily-triage', restored: ['loop-run-log.md', 'loop-ledger.json'], stateBlocks: true });
    expect(removed.branches.length).toBeGreaterThan(0);

    expect(await journalLines(root)).toEqual([expect.objectContaining({ tickId: 'real-1', tokens: 777, backend: 'claude-code' })]);
    expect(await real.spentOn(DAY, 'daily-triage')).toBe(777);
    expect(existsSync(join(root, 'loop-ledger.json'))).toBe(false);
    expect(await runLogLines(root)).toEqual([]);
    const state = await readText(root, 'STATE.md');
    expect(state).not.toContain('<!-- loop-runtime:');
    expect(state).toContain('Human note: keep an eye on src/example.ts');
    expect(git(root, 'branch', '--list', 'loop/daily-triage/*').trim()).toBe('');
    expect(git(root, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git(root, 'status', '--porcelain', '--untracked-files=no').trim()).toBe('');
  });

  it('takes back a human decision on the rehearsal too: discard a mock proposal, reset, and the checkout is as before', async () => {
    // The team's methodology files, committed as a scaffold has them (no final newline in the run log).
    const root = await makeRepo({
      'src/example.ts': 'export const answer = 42;\n',
      'LOOP.md': loopMarkdown({ backend: 'mock', verify: [], loops: { 'daily-triage': {} } }),
      'STATE.md': '# State\n\nLast run: never\n',
      'loop-run-log.md': '# Run log\n\n## Recent Runs\n\n<!-- Loop appends below this line -->',
    });
    const before = { state: await readText(root, 'STATE.md'), log: await readText(root, 'loop-run-log.md') };
    expect((await runCli(root, ['run', 'daily-triage', '--level', 'L2'])).code).toBe(0);
    const branch = git(root, 'branch', '--list', '--format=%(refname:short)', 'loop/daily-triage/mock-*').trim();
    expect(isRehearsalBranch(branch, 'daily-triage')).toBe(true);
    const discarded = await runCli(root, ['discard', 'mock#1']);
    expect(discarded.code, discarded.stderr).toBe(0);
    // The decision's run-log line is the rehearsal's: tagged like its ticks.
    expect((await runLogLines(root)).at(-1)).toMatchObject({ kind: 'human-discarded', backend: 'mock' });

    expect((await runCli(root, ['reset', 'daily-triage', '--mock'])).code).toBe(0);
    expect(git(root, 'status', '--porcelain').trim()).toBe('');
    expect(await readText(root, 'STATE.md')).toBe(before.state);
    expect(await readText(root, 'loop-run-log.md')).toBe(before.log);
  });

  it("the twin: a real loop's branch is not a rehearsal's, whatever its item is called", () => {
    expect(isRehearsalBranch('loop/daily-triage/mock-1-abc', 'daily-triage')).toBe(true);
    expect(isRehearsalBranch('loop/daily-triage/ci-1-abc', 'daily-triage')).toBe(false);
    expect(isRehearsalBranch('loop/ci-sweeper/mock-1-abc', 'daily-triage')).toBe(false);
  });

  it('refuses without --mock: real records are never reset', async () => {
    const root = await makeRepo({ 'LOOP.md': loopMarkdown({ backend: 'mock', loops: { 'daily-triage': {} } }) });
    const refused = await runCli(root, ['reset', 'daily-triage']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('--mock');
  });
});
