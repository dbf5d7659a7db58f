/**
 * The per-test rule through the engine, on memory ports and the scripted command runner (the twin answers the
 * verifier's reporter with JUnit): which tests ran at the base and after decides, not the exit code.
 */
import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { ScriptedCommandRunner } from '../../testing/scripted-command-runner.js';
import { ScriptedEditBackend } from '../../testing/scripted-edit-backend.js';
import type { TestStatus } from '../ports/index.js';
import { LoopEngine } from './loop-engine.js';

type Results = Record<string, TestStatus>;
const BASE: Results = { 'tests.test_text::test_quotes': 'failed', 'tests.test_text::test_dates': 'failed', 'tests.test_text::test_add': 'passed' };

async function tick(runs: Results[], options: { exitCodes?: Record<string, number> } = {}) {
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['pytest -q'], maxAttempts: 1 } });
  const ports = createMemoryPorts({ plan, files: { 'src/math.js': 'export const x = 1;\n' } });
  const backend = new ScriptedEditBackend({ edit: (files) => files.write('src/math.js', 'export const x = 2;\n') });
  const commands = new ScriptedCommandRunner(ports.clock, { testResults: { 'pytest -q': runs }, ...options });
  const result = await new LoopEngine(plan, { ...ports, backend, commands }).tick();
  const verification = result.kind === 'proposed' || result.kind === 'escalated' || result.kind === 'rejected' ? result.verification : null;
  return { result, verification, reasons: verification?.reasons ?? [], backend, steps: result.steps.map((step) => step.note) };
}

describe('per-test verification through the engine', () => {
  it('approves a fix of one of two unrelated red tests although the command exits 1, and records every test', async () => {
    const { result, verification, reasons, steps } = await tick([BASE, { ...BASE, 'tests.test_text::test_quotes': 'passed' }]);
    expect(result.kind).toBe('proposed');
    expect(verification?.evidence[0]).toMatchObject({
      exitCode: 1,
      tests: { source: 'report', runner: 'pytest', reporter: 'pytest junit via PYTEST_ADDOPTS', collected: 3, tests: { 'tests.test_text::test_quotes': 'passed', 'tests.test_text::test_dates': 'failed' } },
    });
    expect(reasons).toContain('fail-to-pass (`pytest -q`): `tests.test_text::test_quotes` failed at the base and pass now');
    expect(reasons.join('\n')).toContain('`tests.test_text::test_dates` failed at the base and still fail — not what this item is about, so not blocking');
    expect(steps.join('\n')).toContain('`pytest -q`: 1 passed, 2 failed, 0 skipped of 3 (pytest junit via PYTEST_ADDOPTS)');
  });

  it('rejects, naming the test, when a passing test goes missing — and does not pay the checker', async () => {
    const { result, reasons, backend } = await tick([BASE, { 'tests.test_text::test_quotes': 'passed', 'tests.test_text::test_dates': 'failed' }]);
    expect(result.kind === 'escalated' || result.kind === 'rejected' ? result.verification?.verdict : result.kind).toBe('REJECT');
    expect(reasons).toContain('`pytest -q`: 1 test(s) passed at the base and are missing now (not collected, deselected or not run): `tests.test_text::test_add`');
    expect(backend.calls).not.toContain('check');
  });

  it('rejects a change that fixes none of the base-failing tests, and the command that fails for another reason', async () => {
    const none = await tick([BASE, BASE]);
    expect(none.reasons).toContain('`pytest -q`: none of the 2 test(s) that failed at the base passes now (`tests.test_text::test_quotes`, `tests.test_text::test_dates`)');
    const green = { ...BASE, 'tests.test_text::test_quotes': 'passed', 'tests.test_text::test_dates': 'passed' } as Results;
    const crashed = await tick([BASE, green], { exitCodes: { 'pytest -q': 3 } });
    expect(crashed.reasons).toContain('`pytest -q` failed although every test it reported passed: something besides the tests failed');
  });
});
