/**
 * Rust's unit tests live inside the source (`#[cfg(test)] mod tests` in src/lib.rs), so the base-test rule
 * cannot restore a test file: it puts the base's test items back into the change's code (tree-sitter) and
 * runs them. With `testEdits: allow` — where the test-edit rule no longer escalates — a tautology, a removed
 * assertion or an expected value rewritten to the bug's output inside `#[cfg(test)]` is still rejected by the
 * base's tests; the honest fix that also adds a test of its own is committed. Real ticks: GitWorkspace, cargo
 * test in bubblewrap, a scripted implementer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
import { findExecutable } from '../src/adapters/command-runner/sandbox-host.js';
import { cleanupTempDirs } from './git-fixtures.js';
import { both, perTestTick, replaceIn, RUST_FIX, RUST_REPO, type PerTestTick } from './per-test-fixtures.js';

afterAll(cleanupTempDirs);
const sandbox = await detectSandbox();
const cargo = await findExecutable('cargo');
const LONG = 600_000;

const verdictOf = (tick: PerTestTick) => (tick.result.kind === 'escalated' || tick.result.kind === 'rejected' ? tick.result.verification?.verdict : tick.result.kind);
const SHOUT_ASSERT = 'assert_eq!(shout("hi"), "HI!");';

function expectCaughtByBaseTests(tick: PerTestTick) {
  expect(tick.committed).toEqual([]);
  expect(verdictOf(tick)).toBe('REJECT');
  expect(tick.reasons.join('\n')).toMatch(/with the base's tests/);
  expect(tick.steps.join('\n')).toMatch(/with the base's tests \(1 test\/config path\(s\) restored\): 0\/1 passed/);
}

describe.runIf(sandbox.kind === 'bwrap' && cargo !== null)("the base's inline Rust tests run over the change (testEdits: allow, cargo in bubblewrap)", () => {
  it('a tautology, a removed assertion and an expected value rewritten to the bug inside #[cfg(test)] are rejected by the base tests; the honest fix with a test of its own is committed', async () => {
    const tautology = await perTestTick(RUST_REPO, replaceIn('src/lib.rs', SHOUT_ASSERT, 'assert!(true);'), { testEdits: 'allow' });
    expectCaughtByBaseTests(tautology);

    const removed = await perTestTick(RUST_REPO, replaceIn('src/lib.rs', SHOUT_ASSERT, ''), { testEdits: 'allow' });
    expectCaughtByBaseTests(removed);

    const rewritten = await perTestTick(RUST_REPO, replaceIn('src/lib.rs', SHOUT_ASSERT, 'assert_eq!(shout("hi"), "HI");'), { testEdits: 'allow' });
    expectCaughtByBaseTests(rewritten);

    // The allowed twin: the fix plus a new test inside the same module — the base's tests pass over the fix.
    const honest = await perTestTick(
      RUST_REPO,
      both(RUST_FIX, replaceIn('src/lib.rs', '    #[test]\n    fn adds()', '    #[test]\n    fn shouts_empty() {\n        assert_eq!(shout(""), "!");\n    }\n\n    #[test]\n    fn adds()')),
      { testEdits: 'allow' },
    );
    expect(honest.result.kind, honest.reasons.join('\n')).toBe('proposed');
    expect(honest.committed).toEqual(['src/lib.rs']);
    // The base's tests ran over the fix (by exit code still red: `parses_pairs` is the unrelated bug; per test, green).
    expect(honest.steps.join('\n')).toMatch(/with the base's tests \(1 test\/config path\(s\) restored\): 0\/1 passed/);
    expect(honest.reasons.join('\n')).toMatch(/fail-to-pass .*`src\/lib\.rs::tests::shouts`/);
  }, LONG);
});
