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

  it('a tick whose base results come from the cache resets nothing (nothing ran), and still verifies the gated tree: an ignored file the implementer left is gone before the run', async () => {
    const log = join(await tempDir('loop-baseline-cache-'), 'runs.log');
    const root = await makeRepo({
      // Fails at the base (41) and whenever it can see the file the implementer plants in an ignored cache directory.
      'check.js': `const fs = require('node:fs');\nfs.appendFileSync(${JSON.stringify(log)}, 'run\\n');\nif (fs.existsSync('.pytest_cache/planted')) { console.log('saw the planted file'); process.exit(1); }\nprocess.exit(require('./src/answer.js') === 42 ? 0 : 1);\n`,
      '.gitignore': '.pytest_cache/\n',
      'src/answer.js': 'module.exports = 41;\n',
    });
    const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['node check.js'], maxAttempts: 5 } });
    const memory = createMemoryPorts({ plan });
    const resets: string[] = [];
    const tick = (edit: ConstructorParameters<typeof ScriptedEditBackend>[0]['edit']) => {
      const real = new GitWorkspace({ root, patternId: plan.pattern.id, clock: memory.clock });
      // The real adapter, its resetToBase calls recorded.
      const workspace = Object.assign(Object.create(real) as GitWorkspace, { resetToBase: (handle: Parameters<GitWorkspace['resetToBase']>[0]) => (resets.push(handle.id), real.resetToBase(handle)) });
      return new LoopEngine(plan, { ...memory, workspace, backend: new ScriptedEditBackend({ edit }), commands: createProcessRunner() }).tick();
    };
    const runs = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

    await tick(async () => undefined);
    expect({ runs: await runs(), resets: resets.length }).toEqual({ runs: 1, resets: 1 });
    const second = await tick(async (files) => {
      await files.write('src/answer.js', 'module.exports = 42;\n');
      await files.write('.pytest_cache/planted', 'left by the implementer\n');
    });
    expect(second.steps.map((step) => step.note).join('\n')).toContain('results from the cache');
    expect(resets).toHaveLength(1);
    // Only the verification ran, on a tree without the planted file: it passed, and the change is the fix alone.
    expect(await runs()).toBe(2);
    expect(second.kind).toBe('proposed');
    if (second.kind === 'proposed') expect(second.changes.map((file) => file.path)).toEqual(['src/answer.js']);
  });
});

