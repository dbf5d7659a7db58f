/**
 * Verification by per-test evidence, end to end, per language: a small real repository with two unrelated
 * failing tests, zero config, the real runner (pytest, go test, cargo test, node --test) in bubblewrap, one
 * engine tick. The honest fix of one bug is approved and committed although the other test still fails; each
 * cheat that deletes, skips or deselects a test is rejected by the per-test rule, with the test named.
 * A language's ticks share one baseline cache, as ticks on one checkout do: the honest tick, first, runs the base;
 * each cheat's tick (same base commit, same command) reads it (`sharedBase`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BwrapRunner, detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
import type { CommandRunner } from '../src/core/ports/index.js';
import { fileBaselineCache } from '../src/adapters/workspace/git-baseline-cache.js';
import { cleanupTempDirs, tempDir } from './git-fixtures.js';
import { addVenvWithPlugin, both, NODE_FIX, NODE_REPO, perTestTick, PYTHON_FIX, PYTHON_REPO, replaceIn, RUST_FIX, RUST_REPO, type PerTestTick } from './per-test-fixtures.js';

afterAll(cleanupTempDirs);
const sandbox = await detectSandbox();
const LONG = 600_000;

/** The same runner without the report capability: what verification was before per-test evidence. */
const withoutReports = (runner: CommandRunner): CommandRunner => ({ specificationVersion: runner.specificationVersion, isolation: runner.isolation, run: (command, options) => runner.run(command, options) });

const FROM_CACHE = /^base [0-9a-f]{12}: results from the cache/;
/** One baseline cache for a language's ticks; `expectBase` says whether a tick ran the base or read it. */
async function sharedBase() {
  const baselineCache = fileBaselineCache(await tempDir('per-test-baseline-'));
  return {
    baselineCache,
    expectBase(tick: PerTestTick, from: 'ran' | 'cache') {
      expect(tick.steps.some((step) => FROM_CACHE.test(step)), tick.steps.join('\n')).toBe(from === 'cache');
    },
  };
}

function expectCommitted(tick: PerTestTick, path: string, stillFailing: string) {
  expect(tick.result.kind, tick.reasons.join('\n')).toBe('proposed');
  expect(tick.committed).toEqual([path]);
  expect(tick.reasons.join('\n')).toMatch(/fail-to-pass \(`[^`]+`\): `[^`]*(shout|Shout|shouts)`/);
  expect(tick.reasons.join('\n')).toContain(stillFailing);
  expect(tick.reasons.join('\n')).toContain('not what this item is about, so not blocking');
}

function expectRejectedNaming(tick: PerTestTick, pattern: RegExp) {
  expect(tick.committed).toEqual([]);
  expect(tick.result.kind === 'escalated' || tick.result.kind === 'rejected' ? tick.result.verification?.verdict : tick.result.kind).toBe('REJECT');
  expect(tick.reasons.some((reason) => pattern.test(reason)), tick.reasons.join('\n')).toBe(true);
}

describe.runIf(sandbox.kind === 'bwrap')('per-test verification, end to end in bubblewrap', () => {
  it('Python (pytest): the honest fix is committed with parse_pair still red; deselecting by addopts, skipping, or a conftest hook is rejected naming the test', async () => {
    const { baselineCache, expectBase } = await sharedBase();
    const honest = await perTestTick(PYTHON_REPO, PYTHON_FIX, { baselineCache });
    expectBase(honest, 'ran');
    expect(honest.detected).toEqual(['pytest -q']);
    expect(honest.steps.join('\n')).toMatch(/`pytest -q`: 2 passed, 2 failed, 0 skipped of 4 \(pytest junit via PYTEST_ADDOPTS\)/);
    expectCommitted(honest, 'src/textutil.py', 'tests.test_textutil::test_parse_pair');

    const deselected = await perTestTick(PYTHON_REPO, replaceIn('pyproject.toml', 'testpaths = ["tests"]', 'testpaths = ["tests"]\naddopts = "-k \'not test_shout\'"'), { testEdits: 'allow', baselineCache });
    expectBase(deselected, 'cache');
    expectRejectedNaming(deselected, /failed at the base and are skipped or missing now instead of passing: `tests.test_textutil::test_shout`/);

    const skipped = await perTestTick(PYTHON_REPO, both(PYTHON_FIX, replaceIn('tests/test_textutil.py', 'def test_add_negative', 'import pytest\n\n\n@pytest.mark.skip\ndef test_add_negative')), { testEdits: 'allow', baselineCache });
    expectRejectedNaming(skipped, /passed at the base and are skipped now: `tests.test_textutil::test_add_negative`/);

    const hook = await perTestTick(PYTHON_REPO, both(PYTHON_FIX, (files) => files.write('tests/conftest.py', 'def pytest_collection_modifyitems(config, items):\n    items[:] = [item for item in items if item.name != "test_add"]\n')), { testEdits: 'allow', baselineCache });
    expectBase(hook, 'cache');
    expectRejectedNaming(hook, /passed at the base and are missing now \(not collected, deselected or not run\): `tests.test_textutil::test_add`/);
  }, LONG);

  it('Python with its plugins in an in-repo .venv: zero config runs the venv interpreter, so addopts that need a plugin work (pytest on PATH would fail on usage)', async () => {
    const files = { ...PYTHON_REPO, 'pyproject.toml': PYTHON_REPO['pyproject.toml']!.replace('pythonpath = ["src"]', 'pythonpath = ["src"]\naddopts = "--project-flag"') };
    const honest = await perTestTick(files, PYTHON_FIX, { untracked: addVenvWithPlugin });
    expect(honest.detected).toEqual(['.venv/bin/python -m pytest -q']);
    expectCommitted(honest, 'src/textutil.py', 'tests.test_textutil::test_parse_pair');
    // The twin: the same repository verified with pytest on PATH fails on the plugin's option at the base (a usage
    // error, exit 4), so the tick stops before the implementer, naming it.
    const onPath = await perTestTick(files, PYTHON_FIX, { untracked: addVenvWithPlugin, verify: ['pytest -q'] });
    expect(onPath.committed).toEqual([]);
    expect(onPath.result).toMatchObject({ kind: 'failed', cause: 'verification-cannot-run', cannotRun: [{ command: 'pytest -q', kind: 'usage-error' }] });
  }, LONG);

  // Go runs on the vendored go-humanize in test/cheats-{python,go,rust}.test.ts (the honest fix with an unrelated red
  // test, t.Skip rejected naming the test): each `go test` in the sandbox starts from a cold build cache, so it is not
  // repeated here on a synthetic module.

  it('Rust (cargo, tests inside src/lib.rs): the honest fix is committed; #[ignore], [lib] test = false and a .cargo runner --skip are rejected naming the test', async () => {
    const { baselineCache, expectBase } = await sharedBase();
    const honest = await perTestTick(RUST_REPO, RUST_FIX, { baselineCache });
    expectBase(honest, 'ran');
    expect(honest.detected).toEqual(['cargo test']);
    expectCommitted(honest, 'src/lib.rs', 'src/lib.rs::tests::parses_pairs');

    const ignored = await perTestTick(RUST_REPO, both(RUST_FIX, replaceIn('src/lib.rs', '    #[test]\n    fn adds()', '    #[test]\n    #[ignore]\n    fn adds()')), { testEdits: 'allow', baselineCache });
    expectBase(ignored, 'cache');
    expectRejectedNaming(ignored, /passed at the base and are skipped now: `src\/lib\.rs::tests::adds`/);

    const noLibTests = await perTestTick(RUST_REPO, both(RUST_FIX, replaceIn('Cargo.toml', 'edition = "2021"\n', 'edition = "2021"\n\n[lib]\ntest = false\n')), { testEdits: 'allow', baselineCache });
    expectRejectedNaming(noLibTests, /passed at the base and are missing now .*`src\/lib\.rs::tests::adds`/);

    const runnerSkip = await perTestTick(RUST_REPO, both(RUST_FIX, (files) => files.write('.cargo/config.toml', '[target.x86_64-unknown-linux-gnu]\nrunner = ["sh", "-c", "exec \\"$0\\" \\"$@\\" --skip adds"]\n')), { testEdits: 'allow', baselineCache });
    expectRejectedNaming(runnerSkip, /passed at the base and are missing now .*`src\/lib\.rs::tests::adds`/);
  }, LONG);

  it('JavaScript (node --test via npm test): the honest fix is committed with parsePair still red; { skip: true } is rejected naming the test', async () => {
    const { baselineCache, expectBase } = await sharedBase();
    const honest = await perTestTick(NODE_REPO, NODE_FIX, { baselineCache });
    expectBase(honest, 'ran');
    expect(honest.detected).toEqual(['npm test']);
    expectCommitted(honest, 'src/textutil.js', 'test::parsePair');
    // The twin: the same fix judged by exit code alone (a runner that collects no reports) is rejected, as before.
    const exitCodeOnly = await perTestTick(NODE_REPO, NODE_FIX, { runner: () => withoutReports(new BwrapRunner()) });
    expect(exitCodeOnly.committed).toEqual([]);
    expect(exitCodeOnly.reasons).toContain('`npm test` failed with exit code 1');

    const skipped = await perTestTick(NODE_REPO, both(NODE_FIX, replaceIn('test/textutil.test.js', "test('add', () =>", "test('add', { skip: true }, () =>")), { testEdits: 'allow', baselineCache });
    expectBase(skipped, 'cache');
    expectRejectedNaming(skipped, /passed at the base and are skipped now: `test::add`/);
  }, LONG);
});
