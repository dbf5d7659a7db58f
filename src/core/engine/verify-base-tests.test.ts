import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { JsTestCommandRunner } from '../../testing/js-test-command-runner.js';
import { filesAtMemoryPath, JS_FIXTURE_FILES, JS_FIXTURE_FIX } from '../../testing/js-fixture-project.js';
import { ScriptedEditBackend } from '../../testing/scripted-edit-backend.js';
import type { WorkspaceFiles } from '../ports/index.js';
import { LoopEngine } from './loop-engine.js';

type Edit = (files: Required<WorkspaceFiles>) => Promise<void>;

const replaceIn = (path: string, from: string, to: string): Edit => async (files) => {
  const text = await files.read(path);
  if (text === null || !text.includes(from)) throw new Error(`${path} lacks ${from}`);
  await files.write(path, text.replace(from, to));
};
const fix: Edit = (files) => files.write('src/greet.js', JS_FIXTURE_FIX);
const both = (...edits: Edit[]): Edit => async (files) => {
  for (const edit of edits) await edit(files);
};

async function tick(edit: Edit, testEdits: 'escalate' | 'allow' = 'escalate', base: Record<string, string> = { ...JS_FIXTURE_FILES }) {
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'], testEdits, maxAttempts: 1 } });
  const ports = createMemoryPorts({ plan, files: base });
  const backend = new ScriptedEditBackend({ edit });
  const commands = new JsTestCommandRunner(ports.clock, filesAtMemoryPath(ports.workspace));
  const result = await new LoopEngine(plan, { ...ports, backend, commands }).tick();
  const reasons = result.kind === 'proposed' || result.kind === 'escalated' || result.kind === 'rejected' ? (result.verification?.reasons ?? []) : [];
  return { result, reasons, backend, commands, attempts: ports.attempts.records, committed: ports.workspace.inspect().filter((attempt) => attempt.commit).length };
}

describe('verification against the base (fail-to-pass / pass-to-pass)', () => {
  it('runs the commands at the base before the implementer and commits the honest fix, saying which failed before', async () => {
    const { result, reasons, commands, committed } = await tick(fix);
    expect(result.kind).toBe('proposed');
    expect(committed).toBe(1);
    expect(commands.runs.map((run) => run.exitCode)).toEqual([1, 0]);
    if (result.kind !== 'proposed') return;
    expect(result.verification.baseline).toMatchObject({ failing: ['npm test'] });
    expect(result.verification.baseline?.evidence[0]?.output).toContain('Received: "Hello, ada"');
    expect(reasons.join('\n')).toContain('fail-to-pass: `npm test` failed at the base and pass now');
    expect(result.steps.map((step) => step.note).join('\n')).toContain('1/1 command(s) fail before the change');
  });

  it('rejects an expectation rewritten to what the bug prints — the base tests fail, and every reason is listed; the checker is not paid for', async () => {
    const { result, reasons, backend, committed } = await tick(replaceIn('src/greet.test.js', "toBe('Hello, Ada')", "toBe('Hello, ada')"));
    expect(committed).toBe(0);
    expect(result.kind).toBe('escalated');
    expect(reasons.some((reason) => reason.startsWith("with the base's tests: `npm test` failed"))).toBe(true);
    expect(reasons.some((reason) => reason.includes('assertion-rewritten src/greet.test.js') && reason.includes('what the code printed before the fix'))).toBe(true);
    expect(reasons.some((reason) => reason.includes('src/greet.test.js (test file modified)'))).toBe(true);
    expect(result.kind === 'escalated' && result.verification?.verdict).toBe('REJECT');
    expect(backend.calls).not.toContain('check');
    expect(result.steps.map((step) => step.note)).toContain('checker not called: a verification command already failed, so the change is rejected without paying for a review');
  });

  it('records every reason of a failed attempt, not only the first', async () => {
    const { attempts, reasons } = await tick(replaceIn('package.json', 'jstest src/greet.test.js src/math.test.js', 'jstest src/math.test.js || true'));
    expect(reasons.length).toBeGreaterThan(2);
    expect(attempts.at(-1)?.error).toBe(reasons.join('; '));
  });

  it('rejects toBe → toBeTruthy (passes with its own test, not with the base test)', async () => {
    const { result, reasons, committed } = await tick(replaceIn('src/greet.test.js', "toBe('Hello, Ada')", 'toBeTruthy()'));
    expect(committed).toBe(0);
    expect(result.kind === 'escalated' && result.verification?.verdict).toBe('REJECT');
    expect(reasons.join('\n')).toMatch(/assertion-weakened src\/greet\.test\.js/);
  });

  it('rejects a narrowed test script: the package.json scripts change is named and the base script still fails', async () => {
    const { result, reasons, committed, commands } = await tick(replaceIn('package.json', 'jstest src/greet.test.js src/math.test.js', 'jstest src/math.test.js'));
    expect(committed).toBe(0);
    expect(commands.runs.map((run) => run.exitCode)).toEqual([1, 0, 1]);
    expect(result.kind === 'escalated' && result.verification?.verdict).toBe('REJECT');
    expect(reasons.join('\n')).toContain('package.json (package.json scripts changed)');
  });

  it('escalates an honest fix that also adds a test, naming the path (a human decides on test edits)', async () => {
    const { result, reasons, committed } = await tick(both(fix, (files) => files.write('src/extra.test.js', "it('x', () => { expect(1).toBe(1); });\n")));
    expect(committed).toBe(0);
    expect(result).toMatchObject({ kind: 'escalated', verification: { verdict: 'ESCALATE_HUMAN' } });
    expect(reasons.join('\n')).toContain('src/extra.test.js (test file added)');
    expect(reasons.join('\n')).toContain('`testEdits: allow`');
  });

  it('with testEdits: allow, commits a fix with a new test — and still runs the base tests over it', async () => {
    const { result, commands, committed } = await tick(both(fix, (files) => files.write('src/extra.test.js', "it('x', () => { expect(1).toBe(1); });\n")), 'allow');
    expect(result.kind).toBe('proposed');
    expect(committed).toBe(1);
    expect(commands.runs).toHaveLength(3);
    expect(result.kind === 'proposed' && result.verification.baseTests?.map((entry) => entry.exitCode)).toEqual([0]);
  });

  it('with testEdits: allow, a weakened test without a fix is still rejected by the base tests', async () => {
    const { result, committed } = await tick(replaceIn('src/greet.test.js', "toBe('Hello, Ada')", 'toBeDefined()'), 'allow');
    expect(committed).toBe(0);
    expect(result.kind === 'escalated' && result.verification?.verdict).toBe('REJECT');
  });

  it('says so when the base is green (the commands show nothing broke, not that the item is fixed)', async () => {
    const { result, reasons } = await tick(replaceIn('README.md', '# greeter', '# Greeter'), 'escalate', { ...JS_FIXTURE_FILES, 'src/greet.js': JS_FIXTURE_FIX });
    expect(result.kind).toBe('proposed');
    expect(reasons.join('\n')).toContain('the base was green');
    expect(result.steps.map((step) => step.note).join('\n')).toContain('green — every verification command passed before the change');
    const red = await tick(fix);
    expect(red.reasons.join('\n')).not.toContain('base was green');
  });
});
