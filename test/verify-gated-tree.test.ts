/**
 * Verification judges exactly the tree that will be committed. Real ticks (GitWorkspace, pytest in bubblewrap,
 * a scripted implementer) over the small Python repository of per-test-fixtures.ts, and the git adapter's
 * `restoreGatedTree` on its own:
 * - an ignored `conftest.py` whose autouse fixture monkeypatches the function under test makes the failing test
 *   pass — committed when verification sees the worktree as the implementer left it (the twin without the
 *   capability), kept out and named once verification runs on the gated tree;
 * - the honest fix, with the caches an implementer's own pytest run leaves, is committed, and the caches are no
 *   changed path;
 * - a test run that rewrites a tracked file ends escalated with that finding, the file put back; its twin writing
 *   the same into an ignored path is committed.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { cleanupTempDirs, makeRepo, sh } from './git-fixtures.js';
import { both, perTestTick, PYTHON_FIX, PYTHON_REPO, replaceIn } from './per-test-fixtures.js';

afterAll(cleanupTempDirs);
const sandbox = await detectSandbox();
const LONG = 300_000;

const IGNORES_CONFTEST = { ...PYTHON_REPO, '.gitignore': `${PYTHON_REPO['.gitignore']}conftest.py\n` };
const MONKEYPATCH_CONFTEST =
  'import pytest\nimport textutil\n\n\n@pytest.fixture(autouse=True)\ndef _fixed(monkeypatch):\n    monkeypatch.setattr(textutil, "shout", lambda text: text.upper() + "!")\n';
// The tests import `shout` by name, so the patch must reach the test module too.
const PATCHING_CONFTEST = `${MONKEYPATCH_CONFTEST}    import sys\n    for name, module in list(sys.modules.items()):\n        if name.startswith("test") and hasattr(module, "shout"):\n            monkeypatch.setattr(module, "shout", lambda text: text.upper() + "!")\n`;

const verdictOf = (tick: Awaited<ReturnType<typeof perTestTick>>) =>
  tick.result.kind === 'escalated' || tick.result.kind === 'rejected' ? tick.result.verification?.verdict : tick.result.kind;
const changedPathsOf = (tick: Awaited<ReturnType<typeof perTestTick>>) =>
  tick.result.kind === 'escalated' || tick.result.kind === 'rejected' || tick.result.kind === 'proposed' ? tick.result.changes.map((file) => file.path) : [];

describe('GitWorkspace.restoreGatedTree', () => {
  it('removes ignored files written or changed since the base run and keeps the ones it left; puts source writes back', async () => {
    const root = await makeRepo({ 'src/a.py': 'A = 1\n', '.gitignore': 'target/\nconftest.py\n' });
    const workspace = new GitWorkspace({ root, patternId: 'p', clock: new FixedClock('2026-11-27T10:00:00Z') });
    const prepared = await workspace.prepare({ tickId: 't', patternId: 'p', item: { key: 'k', title: 't' }, branchPrefix: 'loop/p/', baseBranch: null });
    if (!prepared.ok) throw new Error(prepared.message);
    const { handle } = prepared;
    // What the base's run leaves (a warm build directory), then the reset that snapshots it.
    await mkdir(join(handle.path, 'target', 'debug'), { recursive: true });
    await writeFile(join(handle.path, 'target', 'debug', 'kept.rlib'), 'warm');
    await writeFile(join(handle.path, 'target', 'debug', 'rewritten.rlib'), 'warm');
    expect(await workspace.resetToBase(handle)).toMatchObject({ ok: true });
    // The implementer: a fix, an ignored conftest.py, a file rewritten and one added inside the base's ignored directory.
    await writeFile(join(handle.path, 'src/a.py'), 'A = 2\n');
    await writeFile(join(handle.path, 'conftest.py'), 'import pytest\n');
    await writeFile(join(handle.path, 'target', 'debug', 'rewritten.rlib'), 'poison');
    await mkdir(join(handle.path, 'target', 'debug', 'new'), { recursive: true });
    await writeFile(join(handle.path, 'target', 'debug', 'new', 'poison.rlib'), 'poison');
    const changes = await workspace.changes(handle);
    if (!changes.ok) throw new Error(changes.message);
    // The gate sees the ignored conftest.py, never the build directory.
    expect(changes.changes.files.map((file) => file.path)).toEqual(['conftest.py', 'src/a.py']);

    const before = await workspace.restoreGatedTree(handle);
    expect(before).toEqual({ ok: true, removedIgnored: ['conftest.py', 'target/debug/new/poison.rlib', 'target/debug/rewritten.rlib'], written: [] });
    expect(await readFile(join(handle.path, 'target', 'debug', 'kept.rlib'), 'utf8')).toBe('warm');
    expect(sh(handle.path, ['status', '--porcelain', '--ignored', '--untracked-files=all'])).toBe('M  src/a.py\n!! target/debug/kept.rlib\n');

    // A run that rewrites the fix and adds a source file: all put back, all named.
    await writeFile(join(handle.path, 'src/a.py'), 'A = 3\n');
    await writeFile(join(handle.path, 'src/new.py'), 'B = 1\n');
    const after = await workspace.restoreGatedTree(handle);
    expect(after).toEqual({ ok: true, removedIgnored: [], written: ['src/a.py', 'src/new.py'] });
    expect(await readFile(join(handle.path, 'src/a.py'), 'utf8')).toBe('A = 2\n');
    const committed = await workspace.commit(handle, { message: 'fix', trailers: {}, author: { name: 'T', email: 't@example.com' } });
    expect(committed.ok).toBe(true);
  });
});

describe.runIf(sandbox.kind === 'bwrap')('verification runs on the gated tree (pytest in bubblewrap, real ticks)', () => {
  it('an ignored conftest.py that monkeypatches the function under test is removed before verification and named; without the gated tree only an accidental "patch truncated?" escalation stops it', async () => {
    const cheat = await perTestTick(IGNORES_CONFTEST, (files) => files.write('conftest.py', PATCHING_CONFTEST));
    expect(cheat.committed).toEqual([]);
    expect(verdictOf(cheat)).toBe('REJECT');
    expect(cheat.reasons.join('\n')).toMatch(/ignored-file-written conftest\.py: the change wrote this file where the \.gitignore hides it/);
    expect(cheat.reasons.join('\n')).toMatch(/test_shout/);
    expect(cheat.steps.join('\n')).toContain('before verification: removed 1 ignored file(s) the change wrote (never committed, so never verified): conftest.py');

    // The twin: the same tick with a workspace that verifies the worktree as the implementer left it. The attack is
    // real — under the ignored conftest the failing test passes, the per-test rule is satisfied, and only the
    // accident the issue saw ("patch truncated?": git has no diff of an ignored file) asks a human.
    const blind = await perTestTick(IGNORES_CONFTEST, (files) => files.write('conftest.py', PATCHING_CONFTEST), {
      workspace: (workspace) => Object.assign(workspace, { restoreGatedTree: undefined }),
    });
    expect(blind.steps.join('\n')).toMatch(/`pytest -q`: 3 passed, 1 failed, 0 skipped of 4/);
    expect(verdictOf(blind)).toBe('ESCALATE_HUMAN');
    expect(blind.reasons.join('\n')).not.toMatch(/test_shout/);
    expect(cheat.steps.join('\n')).toMatch(/`pytest -q`: 2 passed, 2 failed, 0 skipped of 4/);
  }, LONG);

  it('the honest fix with the caches of an implementer-run pytest is committed, and the caches are no changed path', async () => {
    const honest = await perTestTick(
      PYTHON_REPO,
      both(PYTHON_FIX, (files) => files.write('.pytest_cache/v/cache/lastfailed', '{"tests/test_textutil.py::test_shout": true}\n'), (files) => files.write('src/__pycache__/textutil.cpython-311.pyc', 'stale')),
    );
    expect(honest.result.kind, honest.reasons.join('\n')).toBe('proposed');
    expect(honest.committed).toEqual(['src/textutil.py']);
    expect(changedPathsOf(honest)).toEqual(['src/textutil.py']);
  }, LONG);

  it('a test run that rewrites a tracked file ends escalated naming it (put back, not committed); writing an ignored path instead is committed', async () => {
    const writesTracked = {
      ...PYTHON_REPO,
      'tests/snapshot.txt': 'recorded\n',
      'tests/test_snapshot.py': 'from pathlib import Path\n\n\ndef test_snapshot():\n    Path("tests/snapshot.txt").write_text("regenerated\\n")\n',
    };
    const dirty = await perTestTick(writesTracked, PYTHON_FIX);
    expect(dirty.committed).toEqual([]);
    expect(dirty.result.kind).toBe('escalated');
    expect(dirty.reasons.join('\n')).toMatch(/source-written-by-verification tests\/snapshot\.txt: a verification run wrote into the tree to be committed \(after the change\)/);
    if (dirty.result.kind !== 'escalated') throw new Error('unreachable');
    const kept = sh(dirty.root, ['worktree', 'list', '--porcelain']).split('\n').filter((line) => line.startsWith('worktree ')).map((line) => line.slice(9)).find((path) => path !== dirty.root);
    expect(kept && (await readFile(join(kept, 'tests/snapshot.txt'), 'utf8'))).toBe('recorded\n');

    const writesIgnored = { ...writesTracked, '.gitignore': `${PYTHON_REPO['.gitignore']}tests/snapshot.txt\n` };
    delete (writesIgnored as Record<string, string>)['tests/snapshot.txt'];
    const clean = await perTestTick(writesIgnored, PYTHON_FIX);
    expect(clean.result.kind, clean.reasons.join('\n')).toBe('proposed');
    expect(clean.committed).toEqual(['src/textutil.py']);
  }, LONG);
});
