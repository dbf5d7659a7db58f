/**
 * A verification command runs in its worktree, now outside the checkout in the
 * state directory: it reads and writes its own worktree, and sees neither the
 * repository's other worktrees nor another repository's — with the hiding list
 * the composition root uses (`worktreeHidingPaths`). Each block has its twin.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BwrapRunner } from '../src/adapters/command-runner/bwrap-runner.js';
import { createProcessRunner } from '../src/adapters/command-runner/process-runner.js';
import { findExecutable } from '../src/adapters/command-runner/sandbox-host.js';
import { worktreeHidingPaths, worktreesDirFor } from '../src/adapters/workspace/worktrees-location.js';

const CANARY = 'other-worktree-canary-5d1e';
const bwrapPath = await findExecutable('bwrap');
const made: string[] = [];
afterAll(async () => Promise.all(made.map((path) => rm(path, { recursive: true, force: true }))));

describe.skipIf(bwrapPath === null)('worktrees in the state directory, sandboxed (real bwrap)', () => {
  it('a command sees its own worktree read-write, and no other worktree of this or another repository', async () => {
    const base = await mkdtemp(join(tmpdir(), 'loop-wt-sandbox-'));
    made.push(base);
    const repo = join(base, 'repo');
    const otherRepo = join(base, 'other-repo');
    await mkdir(repo, { recursive: true });
    await mkdir(otherRepo, { recursive: true });
    const own = join(worktreesDirFor(repo), 'a1');
    const sibling = join(worktreesDirFor(repo), 'a2');
    const foreign = join(worktreesDirFor(otherRepo), 'b1');
    for (const directory of [own, sibling, foreign]) await mkdir(directory, { recursive: true });
    await writeFile(join(own, 'own.txt'), 'mine\n');
    await writeFile(join(sibling, 'notes.txt'), `${CANARY}\n`);
    await writeFile(join(foreign, 'notes.txt'), `${CANARY}\n`);

    const runner = (hiddenExtra: string[]) =>
      new BwrapRunner({ home: join(base, 'home'), hiddenExtra, env: { PATH: process.env.PATH, LANG: 'C' }, killGraceMs: 200, adjustProfile: (profile) => ({ ...profile, privateTmp: false }) });
    const command = { command: `cat own.txt; echo written > made.txt; cat ${sibling}/notes.txt; cat ${foreign}/notes.txt; ls ${worktreesDirFor(repo)}; exit 0`, timeoutMs: 20_000 };
    // The twin: unsandboxed, the other worktrees are readable. In bwrap they are absent even without the hiding list.
    expect((await createProcessRunner({ env: { PATH: process.env.PATH } }).run(command, { cwd: own, timeoutMs: 20_000 })).output).toContain(CANARY);
    expect((await runner([]).run(command, { cwd: own, timeoutMs: 20_000 })).output).not.toContain(CANARY);
    const evidence = await runner(worktreeHidingPaths(repo, null)).run(command, { cwd: own, timeoutMs: 20_000 });
    expect(evidence.exitCode).toBe(0);
    expect(evidence.output).toContain('mine');
    expect(await readFile(join(own, 'made.txt'), 'utf8')).toBe('written\n');
    expect(evidence.output).not.toContain(CANARY);
    // stdout and stderr arrive on two pipes, so cat's errors may land after ls's line: the listing is the line that
    // names a worktree, and it names only this one.
    const lines = evidence.output.trim().split('\n');
    expect(lines).toContain('a1');
    expect(lines.filter((line) => /^a\d$/.test(line))).toEqual(['a1']);
  });
});
