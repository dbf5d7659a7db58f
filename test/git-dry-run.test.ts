import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
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
  // and the objects' location come from one rev-parse.
  it('rehearses with at most 14 git processes and no clone', async () => {
    const root = await makeRepo();
    const wrapper = await mkdtemp(join(tmpdir(), 'git-dry-run-path-'));
    const log = join(wrapper, 'calls.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    await writeFile(join(wrapper, 'git'), `#!/bin/sh\necho "$1" >> '${log}'\nexec '${realGit}' "$@"\n`);
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
    expect(calls.length).toBeLessThanOrEqual(14);
    await rm(wrapper, { recursive: true, force: true });
  });
});
