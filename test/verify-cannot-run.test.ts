/**
 * A verification command that cannot run at the base (no tests collected, a runner that is not installed) stops
 * the tick before the implementer, with its fix — real repositories, real runners in bubblewrap, zero config.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs } from './git-fixtures.js';
import { NODE_FIX, NODE_REPO, PYTHON_FIX, PYTHON_REPO, perTestTick } from './per-test-fixtures.js';

afterAll(cleanupTempDirs);

const withoutTests = (files: Record<string, string>, prefix: string) => Object.fromEntries(Object.entries(files).filter(([path]) => !path.startsWith(prefix)));

describe('verification that cannot run at the base, end to end', () => {
  it('pytest collects no tests (exit 5): a failed tick naming it, before any implementer call', async () => {
    const tick = await perTestTick(withoutTests(PYTHON_REPO, 'tests/'), PYTHON_FIX);
    expect(tick.result).toMatchObject({ kind: 'failed', phase: 'verify', cause: 'verification-cannot-run', cannotRun: [{ kind: 'no-tests-collected' }] });
    expect(tick.steps.join('\n')).toContain('collected no tests at the base');
    expect(tick.result.steps.some((step) => step.phase === 'implement')).toBe(false);
  });

  it('node --test finds no test file (exit 0, "tests 0"): the same', async () => {
    const tick = await perTestTick(withoutTests(NODE_REPO, 'test/'), NODE_FIX);
    expect(tick.result).toMatchObject({ kind: 'failed', cause: 'verification-cannot-run', cannotRun: [{ command: tick.detected[0], kind: 'no-tests-collected' }] });
    expect(tick.result.steps.some((step) => step.phase === 'implement')).toBe(false);
  });

  it('a runner that is not installed (exit 127) names the fix', async () => {
    const tick = await perTestTick(PYTHON_REPO, PYTHON_FIX, { verify: ['definitely-not-a-test-runner -q'] });
    expect(tick.result).toMatchObject({ kind: 'failed', cause: 'verification-cannot-run', cannotRun: [{ kind: 'command-not-found' }] });
    expect(tick.result.kind === 'failed' && tick.result.message).toContain('To fix: install the test runner');
  });

  it('the twin: the same Python repository with its tests runs the implementer and commits the fix', async () => {
    const tick = await perTestTick(PYTHON_REPO, PYTHON_FIX);
    expect(tick.result.steps.some((step) => step.phase === 'implement')).toBe(true);
    expect(tick.result.kind).toBe('proposed');
  });
});
