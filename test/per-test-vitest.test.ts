/**
 * vitest's reporter added by appended arguments through `npm test -- …`, for real (vitest from this package's
 * node_modules, linked into a temporary project): the JUnit report comes back from the runner's report directory
 * and is read per test. The twin: a compound script gets no reporter and says why.
 */
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProcessRunner } from '../src/adapters/command-runner/process-runner.js';
import { planReports, runWithReport } from '../src/core/verify/index.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';

afterAll(cleanupTempDirs);

async function vitestProject(script: string): Promise<string> {
  const root = await makeRepo({
    'package.json': JSON.stringify({ name: 'v', type: 'module', scripts: { test: script } }),
    'math.test.js': "import { describe, expect, test } from 'vitest';\ntest('adds', () => expect(1 + 1).toBe(2));\ntest('fails', () => expect(1).toBe(2));\ntest.skip('later', () => {});\ndescribe('group', () => { test('inner', () => {}); });\n",
  });
  await symlink(join(import.meta.dirname, '..', 'node_modules'), join(root, 'node_modules'));
  return root;
}

describe('vitest per test through npm test', () => {
  it('appends the junit reporter and reads every test', async () => {
    const root = await vitestProject('vitest run');
    const runner = createProcessRunner();
    const command = { command: 'npm test', timeoutMs: 300_000 };
    const plans = await planReports([command], runner, async () => JSON.stringify({ scripts: { test: 'vitest run' } }));
    const evidence = await runWithReport(runner, command, { cwd: root, timeoutMs: 300_000 }, plans.get('npm test')!);
    expect(evidence.exitCode).toBe(1);
    expect(evidence.output).toContain('fails');
    expect(evidence.tests).toEqual({
      source: 'report',
      runner: 'vitest',
      reporter: 'vitest junit via appended arguments',
      collected: 4,
      tests: { 'math.test.js::adds': 'passed', 'math.test.js::fails': 'failed', 'math.test.js::later': 'skipped', 'math.test.js::group > inner': 'passed' },
    });
  });

  it('a compound script gets no reporter: the exit code decides, and the evidence says why', async () => {
    const root = await vitestProject('vitest run && echo done');
    const runner = createProcessRunner();
    const command = { command: 'npm test', timeoutMs: 300_000 };
    const plans = await planReports([command], runner, async () => JSON.stringify({ scripts: { test: 'vitest run && echo done' } }));
    const evidence = await runWithReport(runner, command, { cwd: root, timeoutMs: 300_000 }, plans.get('npm test')!);
    expect(evidence.exitCode).toBe(1);
    expect(evidence.tests).toMatchObject({ source: 'exit-code', runner: 'vitest', why: expect.stringContaining('compound') });
  });
});
