import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { worktreesDirFor } from '../src/adapters/workspace/worktrees-location.js';
import { cleanupTempDirs, makeRepo, sh } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

async function cli(cwd: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { cwd, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

const loopMd = (worktreesDir?: string) => `---
loop-runtime:
  backend: mock
  backendOptions:
    targetPath: .env
  verify:
    - "true"
${worktreesDir ? `  worktreesDir: ${worktreesDir}\n` : ''}  loops:
    daily-triage: {}
---
# Loops
`;

const TEST_FILE = "import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => assert.strictEqual(1 + 1, 2));\n";

/** How many tests `node --test` runs in `cwd` (Node 20 looks for test files everywhere below it, `.git/` included). */
function nodeTestCount(cwd: string): number {
  const output = execFileSync(process.execPath, ['--test', '--test-reporter=tap'], { cwd, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return Number(/^# tests (\d+)$/m.exec(output)?.[1] ?? NaN);
}

async function escalatedRepo(worktreesDir?: string): Promise<{ root: string; id: string; path: string }> {
  // The loop's own record files are the project's business (commit or ignore them); the worktree must not show.
  const root = await makeRepo({ 'test/sum.test.mjs': TEST_FILE, 'LOOP.md': loopMd(worktreesDir), '.gitignore': 'STATE.md\nloop-ledger.json\nloop-run-log.md\n.loop-runtime/\n' });
  const run = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json']);
  expect(cliJson(run.stdout).ticks[0].kind).toBe('escalated');
  const items = cliJson((await cli(root, ['inbox', '--json'])).stdout).items as Array<{ id: string; path: string }>;
  expect(items).toHaveLength(1);
  return { root, id: items[0]!.id, path: items[0]!.path };
}

describe('worktrees live outside the checkout', () => {
  it("after a tick leaves a worktree, the project's own `node --test` runs its test once and git status is clean", async () => {
    const { root, path } = await escalatedRepo();
    expect(path.startsWith(worktreesDirFor(root))).toBe(true);
    expect(path.startsWith(root)).toBe(false);
    expect(existsSync(join(path, 'test', 'sum.test.mjs'))).toBe(true);
    expect(nodeTestCount(root)).toBe(1);
    expect(sh(root, ['status', '--porcelain'])).toBe('');
  });

  it('the control: worktreesDir: .loop-worktrees (inside the checkout) makes node --test run the test twice', async () => {
    const { root, path } = await escalatedRepo('.loop-worktrees');
    expect(path.startsWith(join(root, '.loop-worktrees'))).toBe(true);
    expect(nodeTestCount(root)).toBe(2);
    // Kept out of git status all the same (.git/info/exclude).
    expect(sh(root, ['status', '--porcelain'])).toBe('');
  });

  it('a change escalated under .loop-worktrees by an earlier version stays in the inbox and approvable; the old directory drains', async () => {
    const { root, id, path } = await escalatedRepo('.loop-worktrees');
    // The upgrade: the setting goes away (the default place is now the state directory).
    await writeFile(join(root, 'LOOP.md'), loopMd());
    sh(root, ['commit', '--quiet', '--all', '-m', 'default worktrees place']);
    const legacyManifest = join(root, '.loop-worktrees', 'manifest.json');
    expect(JSON.parse(await readFile(legacyManifest, 'utf8')).worktrees).toHaveLength(1);

    const inbox = cliJson((await cli(root, ['inbox', '--json'])).stdout).items as Array<{ id: string; path: string }>;
    expect(inbox.map((item) => [item.id, item.path])).toEqual([[id, path]]);
    const approved = await cli(root, ['approve', id, '--yes', '--json']);
    expect(approved.code).toBe(0);
    expect(cliJson(approved.stdout)).toMatchObject({ status: 'applied', paths: ['.env'] });

    // Adopted: the current manifest holds the entry; the legacy manifest is gone.
    expect(existsSync(legacyManifest)).toBe(false);
    const manifest = JSON.parse(await readFile(join(worktreesDirFor(root), 'manifest.json'), 'utf8'));
    expect(manifest.worktrees.find((entry: { id: string }) => entry.id === id)).toMatchObject({ status: 'merged', path: `.loop-worktrees/${id}` });
    // The next tick recycles it out of the checkout: nothing is left under .loop-worktrees.
    await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json']);
    expect(existsSync(join(root, '.loop-worktrees'))).toBe(false);
    expect(nodeTestCount(root)).toBe(1);
  });
});
