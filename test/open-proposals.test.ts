/**
 * One proposal per item: while a loop's change for an item is open (a local
 * branch not merged, a pushed branch, a pull request, an escalated change),
 * its next tick does not make the change again. Once outcome tracking sees it
 * merged, the item may be proposed again.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { cleanupTempDirs, makeRepo, sh } from './git-fixtures.js';

afterAll(cleanupTempDirs);

async function run(cwd: string): Promise<{ kind: string; degradedReason?: string; steps: Array<{ phase: string }>; commit?: { branch: string } }> {
  let stdout = '';
  await main(['run', 'daily-triage', '--level', 'L2', '--json'], { cwd, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stdout: (text) => (stdout += text), stderr: () => undefined });
  return JSON.parse(stdout).ticks[0];
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
