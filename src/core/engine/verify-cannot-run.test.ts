import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { ScriptedCommandRunner } from '../../testing/scripted-command-runner.js';
import { ScriptedEditBackend } from '../../testing/scripted-edit-backend.js';
import { LoopEngine } from './loop-engine.js';

/** One L2 tick whose single verification command exits `exitCode` at the base (and 0 after the change). */
async function tick(command: string, exitCode: number) {
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: [command], maxAttempts: 2 } });
  const ports = createMemoryPorts({ plan, files: { 'src/example.ts': 'export const answer = 41;\n' } });
  let runs = 0;
  const scripted = new ScriptedCommandRunner(ports.clock, {});
  // The base's run exits as given; every later run passes.
  const commands = { ...scripted, specificationVersion: scripted.specificationVersion, isolation: 'scripted', run: async (...args: Parameters<ScriptedCommandRunner['run']>) => ({ ...(await scripted.run(...args)), exitCode: runs++ === 0 ? exitCode : 0 }) };
  const backend = new ScriptedEditBackend({ edit: (files) => files.write('src/example.ts', 'export const answer = 42;\n') });
  const result = await new LoopEngine(plan, { ...ports, backend, commands }).tick();
  return { result, calls: backend.calls, attempts: ports.attempts.records, workspace: ports.workspace.inspect() };
}

describe('a verification command that cannot run at the base stops the tick before the implementer', () => {
  it.each([
    ['not found (exit 127)', 'pytest -q', 127, 'command-not-found', 'activate or point at'],
    ['a pytest usage error (exit 4)', 'pytest -q', 4, 'usage-error', 'To fix: run the command by hand'],
    ['no tests collected (pytest exit 5)', 'python -m pytest', 5, 'no-tests-collected', 'collected no tests'],
    ['not found, another runner', 'npx vitest run', 127, 'command-not-found', 'install the test runner'],
  ])('%s: a failed tick with its cause and fix; no implementer call, no attempt, nothing kept', async (_name, command, exitCode, kind, fix) => {
    const { result, calls, attempts, workspace } = await tick(command, exitCode);
    expect(result.kind).toBe('failed');
    if (result.kind !== 'failed') return;
    expect(result).toMatchObject({ phase: 'verify', cause: 'verification-cannot-run', retryable: false, cannotRun: [{ command, kind }] });
    expect(result.message).toContain(fix);
    expect(result.message).toContain('To fix:');
    // Costs no implementer tokens (triage, which chose the item, is the only call), and the circuit breaker sees no failed attempt.
    expect(calls).toEqual(['triage']);
    expect(result.steps.some((step) => step.phase === 'implement')).toBe(false);
    expect(attempts).toEqual([]);
    expect(workspace.map((attempt) => attempt.status)).toEqual(['rejected']);
  });

  it.each([
    ['a failing suite (exit 1)', 'pytest -q', 1],
    ['pytest exit 5 is only pytest’s: another command exiting 5 fails like any other', 'make check', 5],
    ['a passing suite', 'pytest -q', 0],
  ])('the twin — %s: the implementer runs and the change is committed', async (_name, command, exitCode) => {
    const { result, calls } = await tick(command, exitCode);
    expect(calls).toContain('implement');
    expect(result.kind).toBe('proposed');
  });
});
