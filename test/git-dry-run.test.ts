import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { DryRunGitWorkspace } from '../src/adapters/workspace/git-dry-run-workspace.js';
import { MemoryWorkspace } from '../src/adapters/workspace/memory-workspace.js';
import { cleanupTempDirs, fingerprint, makeRepo, sh } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

const dryRunCopies = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('loop-runtime-dry-run-'));

/** A private temporary directory for this file's process (vitest forks one per file), so other files' dry runs never show. */
async function privateTmpdir(): Promise<() => Promise<void>> {
  const previous = process.env.TMPDIR;
  const directory = await mkdtemp(join(tmpdir(), 'git-dry-run-tmp-'));
  process.env.TMPDIR = directory;
  return async () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    await rm(directory, { recursive: true, force: true });
  };
}

describe('--dry-run', () => {
  it('runs the git workspace in a temporary copy: the repository stays byte-for-byte the same, .git included', async () => {
    const root = await makeRepo();
    await writeFile(join(root, 'README.md'), '# demo\nuncommitted edit\n');
    await writeFile(join(root, 'scratch.txt'), 'untracked\n');
    // A test script the rehearsal must name (and not run) instead of claiming none is configured.
    await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'demo', scripts: { test: 'exit 1' } }));
    sh(root, ['add', 'package.json']);
    sh(root, ['commit', '-qm', 'package.json']);
    const before = await fingerprint(root);
    const restoreTmpdir = await privateTmpdir();
    const copiesBefore = await dryRunCopies();

    let stdout = '';
    const code = await main(['run', 'daily-triage', '--level', 'L2', '--dry-run', '--json'], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', CI: '' },
      isTTY: false,
      stdout: (text) => (stdout += text),
      stderr: () => {},
    });
    expect(code).toBe(0);
    const tick = cliJson(stdout).ticks[0];
    // A rehearsal runs no verification command, and no evidence is never an approval: the change (made in a real
    // worktree of the copy) is escalated for a human, never committed.
    expect(tick.kind).toBe('escalated');
    expect(tick.reason).toContain('a rehearsal runs no verification command (a real tick runs npm test)');
    expect(tick.steps.map((step: { note: string }) => step.note).join('\n')).toContain('verification: not run in a rehearsal (a real tick runs npm test)');
    expect(tick.changes).toEqual([{ path: 'src/example.ts', status: 'modified', binary: false }]);

    expect(await fingerprint(root)).toEqual(before);
    expect(sh(root, ['branch', '--list', 'loop/*']).trim()).toBe('');
    // The copy is gone after close().
    expect((await dryRunCopies()).filter((name) => !copiesBefore.includes(name))).toEqual([]);
    await restoreTmpdir();
  });

  // Each git call is a process (~5 ms of a cold run). The copy borrows the repository's objects through
  // `git init` and an alternates file: no clone (which spawned git, a shell and upload-pack), and the base commit
  // and the objects' location come from one rev-parse, which is also the base when no base branch is named.
  // Without a base branch named, the probe's HEAD commit is the base and only HEAD's branch is asked besides it; with
  // one, the branch is looked up as a real tick does. Each case checks the commit and the branch the copy's manifest
  // records against git's own answer in the user's repository.
  it('starts from the base a real tick would: HEAD on a branch, a detached HEAD, a named base branch', async () => {
    const root = await makeRepo();
    const first = sh(root, ['rev-parse', 'HEAD']).trim();
    await writeFile(join(root, 'README.md'), '# demo\nsecond\n');
    sh(root, ['commit', '-qam', 'second']);
    const second = sh(root, ['rev-parse', 'HEAD']).trim();
    sh(root, ['branch', 'release', first]);
    const restoreTmpdir = await privateTmpdir();
    const baseOf = async (baseBranch: string | null) => {
      const workspace = new DryRunGitWorkspace({ root, patternId: 'daily-triage', baseBranch, clock: { now: () => 1_700_000_000_000 }, fallback: new MemoryWorkspace({}) });
      try {
        const prepared = await workspace.prepare({ tickId: 't1', patternId: 'daily-triage', item: { key: 'mock#1', title: 'Fix' } as never, branchPrefix: 'loop/daily-triage/', baseBranch: null });
        if (!prepared.ok) throw new Error(prepared.message);
        const manifest = JSON.parse(await readFile(join(workspace.copyRoot!, 'worktrees', 'manifest.json'), 'utf8')) as { worktrees: Array<{ baseCommit: string; baseBranch: string | null }> };
        return { commit: prepared.handle.baseCommit, recorded: manifest.worktrees.map((entry) => [entry.baseCommit, entry.baseBranch]) };
      } finally {
        await workspace.close();
      }
    };
    try {
      expect(await baseOf(null)).toEqual({ commit: second, recorded: [[second, 'main']] });
      expect(await baseOf('release')).toEqual({ commit: first, recorded: [[first, 'release']] });
      sh(root, ['checkout', '-q', '--detach', first]);
      expect(await baseOf(null)).toEqual({ commit: first, recorded: [[first, null]] });
    } finally {
      await restoreTmpdir();
    }
  });

  it('rehearses with at most 11 git processes and no clone', async () => {
    const root = await makeRepo();
    const wrapper = await mkdtemp(join(tmpdir(), 'git-dry-run-path-'));
    const log = join(wrapper, 'calls.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    // The subcommand, after a leading `-c key=value` (NO_HOOKS before `worktree add`).
    await writeFile(join(wrapper, 'git'), `#!/bin/sh\nif [ "$1" = "-c" ]; then echo "$3"; else echo "$1"; fi >> '${log}'\nexec '${realGit}' "$@"\n`);
    await chmod(join(wrapper, 'git'), 0o755);
    const previousPath = process.env.PATH;
    process.env.PATH = `${wrapper}:${previousPath ?? ''}`;
    try {
      const code = await main(['run', 'daily-triage', '--level', 'L2', '--dry-run', '--json'], { cwd: root, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stdout: () => {}, stderr: () => {} });
      expect(code).toBe(0);
    } finally {
      process.env.PATH = previousPath;
    }
    const calls = (await readFile(log, 'utf8')).trim().split('\n');
    expect(calls).toContain('worktree');
    expect(calls).not.toContain('clone');
    expect(calls.length).toBeLessThanOrEqual(11);
    await rm(wrapper, { recursive: true, force: true });
  });
});
