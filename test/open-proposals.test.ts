/**
 * One proposal per item: while a loop's change for an item is open (a local
 * branch not merged, a pushed branch, a pull request, an escalated change),
 * its next tick does not make the change again. Once outcome tracking sees it
 * merged, the item may be proposed again.
 */
import { mkdir, rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { cleanupTempDirs, makeRepo, sh, writeFiles } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

async function run(cwd: string): Promise<{ kind: string; degradedReason?: string; steps: Array<{ phase: string }>; commit?: { branch: string } }> {
  let stdout = '';
  await main(['run', 'daily-triage', '--level', 'L2', '--json'], { cwd, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stdout: (text) => (stdout += text), stderr: () => undefined });
  return cliJson(stdout).ticks[0];
}

const LOOP_MD = '---\nloop-runtime:\n  backend: mock\n  verify:\n    - "true"\n  loops:\n    daily-triage: {}\n---\n# Loops\n';

describe('a local branch is an open proposal until it is merged', () => {
  it('the next tick does not make the change again; after the branch is merged it may', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD });
    const first = await run(root);
    expect(first.kind).toBe('proposed');

    const second = await run(root);
    expect(second).toMatchObject({ kind: 'report', degradedReason: expect.stringContaining('open proposal (mock#1)') });
    expect(second.steps.map((step) => step.phase)).not.toContain('implement');
    expect(sh(root, ['branch', '--list', 'loop/*']).trim().split('\n')).toHaveLength(1);

    sh(root, ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'merge', '--quiet', '--no-edit', first.commit!.branch]);
    const third = await run(root);
    expect(third.steps.map((step) => step.phase)).toContain('implement');
  });
});

describe('a repository deleted and created again at the same path inherits nothing', () => {
  const ESCALATING = '---\nloop-runtime:\n  backend: mock\n  backendOptions:\n    targetPath: .env\n  verify:\n    - "true"\n  loops:\n    daily-triage: {}\n---\n# Loops\n';
  const files = { 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': ESCALATING };

  async function inbox(cwd: string): Promise<Array<{ id: string }>> {
    let stdout = '';
    await main(['inbox', '--json'], { cwd, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stdout: (text) => (stdout += text), stderr: () => undefined });
    return (cliJson(stdout) as { items: Array<{ id: string }> }).items;
  }

  it('the old escalated change (kept outside the checkout, keyed by its path) blocks no tick and is not in the inbox', async () => {
    const root = await makeRepo(files);
    expect((await run(root)).kind).toBe('escalated');
    // The twin: in the same repository the escalated change is open, so the item is not proposed again.
    expect(await run(root)).toMatchObject({ kind: 'report', degradedReason: expect.stringContaining('open proposal') });
    expect(await inbox(root)).toHaveLength(1);

    await rm(root, { recursive: true, force: true });
    await mkdir(root);
    sh(root, ['init', '--quiet', '--initial-branch=main']);
    await writeFiles(root, files);
    sh(root, ['add', '--all']);
    sh(root, ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-m', 'initial']);
    expect(await inbox(root)).toEqual([]);
    const fresh = await run(root);
    expect(fresh.steps.map((step) => step.phase)).toContain('implement');
    expect(fresh.kind).toBe('escalated');
    expect(await inbox(root)).toHaveLength(1);
  });
});

describe('run --ticks N proposes an item once', () => {
  it('the second and third tick of one run see the first one\'s change as open: one branch, not three', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD });
    let stdout = '';
    await main(['run', 'daily-triage', '--level', 'L2', '--ticks', '3', '--json'], { cwd: root, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stdout: (text) => (stdout += text), stderr: () => undefined });
    const ticks = (cliJson(stdout) as { ticks: Array<{ kind: string; degradedReason?: string }> }).ticks;
    expect(ticks.map((tick) => tick.kind)).toEqual(['proposed', 'report', 'report']);
    expect(ticks[1]?.degradedReason).toContain('open proposal');
    expect(sh(root, ['branch', '--list', 'loop/*']).trim().split('\n')).toHaveLength(1);
  });
});
