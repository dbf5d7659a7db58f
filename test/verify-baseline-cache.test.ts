/**
 * Issue 28: base results cached per (base commit, verification command, environment) in the checkout's
 * `.loop-runtime/baseline-cache.json`, so a second tick on an unchanged base runs the suite once. Real git, real
 * processes; the command logs each run to a file outside the worktree.
 */
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dailyTriagePattern } from './fixtures/patterns.js';
import { cleanupTempDirs, makeRepo, sh, tempDir, writeFiles } from './git-fixtures.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import { LoopEngine } from '../src/core/engine/loop-engine.js';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { BASELINE_CACHE_FILE } from '../src/adapters/workspace/git-baseline-cache.js';
import { createProcessRunner } from '../src/adapters/command-runner/process-runner.js';
import { createMemoryPorts } from '../src/testing/create-memory-ports.js';
import { ScriptedEditBackend } from '../src/testing/scripted-edit-backend.js';

afterAll(cleanupTempDirs);

async function setup() {
  const log = join(await tempDir('loop-baseline-cache-'), 'runs.log');
  const root = await makeRepo({
    'package.json': `${JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: 'node check.js' } }, null, 2)}\n`,
    'check.js': `require('node:fs').appendFileSync(${JSON.stringify(log)}, 'run\\n');\nconsole.log('# tests 1\\nnot ok 1 - answer');\nprocess.exit(1);\n`,
    '.gitignore': 'node_modules/\n',
    'src/answer.js': 'module.exports = 41;\n',
  });
  await writeFiles(root, { 'node_modules/dep/package.json': '{ "name": "dep" }\n' });
  // The implementer changes nothing: a failed attempt, so the next tick acts on the same item at the same base.
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'], maxAttempts: 5 } });
  const memory = createMemoryPorts({ plan });
  const tick = () => {
    const workspace = new GitWorkspace({ root, patternId: plan.pattern.id, clock: memory.clock });
    return new LoopEngine(plan, { ...memory, workspace, backend: new ScriptedEditBackend({ edit: async () => undefined }), commands: createProcessRunner() }).tick();
  };
  const runs = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  return { root, tick, runs };
}

describe('base results cached across ticks', () => {
  it('two ticks on an unchanged base run the baseline once; the cache lives in the checkout’s .loop-runtime/', async () => {
    const { root, tick, runs } = await setup();
    const first = await tick();
    expect(first.steps.some((step) => step.phase === 'implement')).toBe(true);
    expect(await runs()).toBe(1);
    const second = await tick();
    expect(second.steps.some((step) => step.phase === 'implement')).toBe(true);
    expect(await runs()).toBe(1);
    expect(second.steps.map((step) => step.note).join('\n')).toContain('results from the cache');
    expect(JSON.parse(await readFile(join(root, BASELINE_CACHE_FILE), 'utf8'))).toMatchObject({ version: 1, entries: [{ key: expect.any(String) }] });
  });

  it.each([
    ['an unreadable cache file', async (root: string) => writeFile(join(root, BASELINE_CACHE_FILE), '{"version": 1, "entries": [{"key": ')],
    ['a reinstalled dependency directory', async (root: string) => {
      const later = new Date(Date.now() + 60_000);
      await utimes(join(root, 'node_modules'), later, later);
    }],
    ['a new base commit', async (root: string) => {
      sh(root, ['commit', '--allow-empty', '-q', '-m', 'moves the base']);
    }],
  ])('the twin — %s: the second tick runs it again', async (_name, change) => {
    const { root, tick, runs } = await setup();
    await tick();
    await change(root);
    const second = await tick();
    expect(second.steps.some((step) => step.phase === 'implement')).toBe(true);
    expect(await runs()).toBe(2);
  });
});
