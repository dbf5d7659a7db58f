/**
 * Zero config on a real JavaScript repository whose test needs a package from
 * node_modules: a fresh worktree has none, so the checkout's node_modules is
 * shown read-only inside it (a bind mount under bubblewrap, a temporary link
 * without a sandbox). The honest fix is verified and committed, and nothing of
 * the dependency directory reaches the commit or is left in the worktree.
 */
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dailyTriagePattern } from './fixtures/patterns.js';
import { cleanupTempDirs, makeRepo, sh, writeFiles } from './git-fixtures.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import { LoopEngine } from '../src/core/engine/loop-engine.js';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { BwrapRunner, detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
import { createProcessRunner } from '../src/adapters/command-runner/process-runner.js';
import { detectVerifyCommands } from '../src/project/detect-verify.js';
import { createMemoryPorts } from '../src/testing/create-memory-ports.js';
import { ScriptedEditBackend } from '../src/testing/scripted-edit-backend.js';
import type { CommandRunner } from '../src/core/ports/index.js';
import { worktreesDirFor } from '../src/adapters/workspace/worktrees-location.js';

afterAll(cleanupTempDirs);

const FIXED = "const { capitalize } = require('tiny-case');\nmodule.exports = { greet: (name) => 'Hello, ' + capitalize(name) };\n";

async function repoWithInstalledDependency(): Promise<string> {
  const root = await makeRepo({
    'package.json': `${JSON.stringify({ name: 'greeter', version: '1.0.0', scripts: { test: 'node test/greet.test.js' } }, null, 2)}\n`,
    'package-lock.json': '{ "lockfileVersion": 3 }\n',
    '.gitignore': 'node_modules/\n',
    'src/greet.js': "module.exports = { greet: (name) => 'Hello, ' + name };\n",
    'test/greet.test.js':
      "const assert = require('node:assert');\nconst { greet } = require('../src/greet.js');\nconst { capitalize } = require('tiny-case');\nassert.strictEqual(capitalize('x'), 'X');\nassert.strictEqual(greet('ada'), 'Hello, Ada');\nconsole.log('ok');\n",
  });
  // Installed, not committed: what `npm ci` leaves in the user's checkout.
  await writeFiles(root, {
    'node_modules/tiny-case/package.json': '{ "name": "tiny-case", "version": "1.0.0", "main": "index.js" }\n',
    'node_modules/tiny-case/index.js': 'exports.capitalize = (text) => text.charAt(0).toUpperCase() + text.slice(1);\n',
  });
  return root;
}

async function honestTick(runner: (root: string) => CommandRunner) {
  const root = await repoWithInstalledDependency();
  const detected = await detectVerifyCommands(root);
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', detectedVerifyCommands: detected, overrides: { maxAttempts: 1 } });
  const memory = createMemoryPorts({ plan });
  const workspace = new GitWorkspace({ root, patternId: plan.pattern.id, clock: memory.clock });
  const backend = new ScriptedEditBackend({ edit: (files) => files.write('src/greet.js', FIXED) });
  const result = await new LoopEngine(plan, { ...memory, workspace, backend, commands: runner(root) }).tick();
  return { root, detected, result };
}

const sandbox = await detectSandbox();

describe('verification sees the checkout’s installed dependencies, read-only, zero config', () => {
  it.each([
    ['without a sandbox (a temporary link)', () => createProcessRunner()],
    ...(sandbox.kind === 'bwrap' ? [['under bubblewrap (a read-only bind mount)', () => new BwrapRunner()] as const] : []),
  ] as Array<[string, () => CommandRunner]>)('%s: the honest fix is verified and committed', async (_name, makeRunner) => {
    const { root, detected, result } = await honestTick(() => makeRunner());
    expect(detected).toEqual(['npm test']);
    expect(result.kind).toBe('proposed');
    if (result.kind !== 'proposed') return;
    // Failed at the base (the bug), passed after the fix: both runs found the dependency.
    expect(result.verification.baseline?.failing).toEqual(['npm test']);
    expect(result.verification.baseline?.evidence[0]?.output).toContain("'Hello, Ada'");
    expect(result.verification.baseline?.evidence[0]?.output).not.toContain('Cannot find module');
    expect(result.verification.evidence.map((entry) => entry.exitCode)).toEqual([0]);
    const committed = sh(root, ['show', '--name-only', '--format=', result.commit.sha]).trim().split('\n');
    expect(committed).toEqual(['src/greet.js']);
    const worktree = sh(root, ['worktree', 'list', '--porcelain']).match(/^worktree (.*\/worktrees\/[^/\n]+)$/m)?.[1] ?? '';
    expect(worktree.startsWith(worktreesDirFor(root))).toBe(true);
    expect(await lstat(join(worktree, 'node_modules')).catch(() => null)).toBeNull();
    expect(await readFile(join(root, 'node_modules/tiny-case/index.js'), 'utf8')).toContain('toUpperCase');
  });

  it.runIf(sandbox.kind === 'bwrap')('under bubblewrap the dependency directory is read-only, and its mount point goes away after the run', async () => {
    const root = await repoWithInstalledDependency();
    const worktree = join(root, 'work');
    await writeFiles(worktree, { 'keep.txt': 'x\n' });
    const readOnlyBinds = [{ source: join(root, 'node_modules'), target: join(worktree, 'node_modules') }];
    const spec = { command: 'cat node_modules/tiny-case/package.json && touch node_modules/tiny-case/pwned', timeoutMs: 600_000 };
    const evidence = await new BwrapRunner().run(spec, { cwd: worktree, timeoutMs: 600_000, readOnlyBinds });
    expect(evidence.output).toContain('"name": "tiny-case"');
    expect(evidence.exitCode).not.toBe(0);
    expect(evidence.output).toMatch(/Read-only file system/i);
    expect(await lstat(join(root, 'node_modules/tiny-case/pwned')).catch(() => null)).toBeNull();
    expect(await lstat(join(worktree, 'node_modules')).catch(() => null)).toBeNull();
  });
});
