import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { parseManifest } from '../src/core/workspace/worktree-manifest.js';
import { worktreesDirFor } from '../src/adapters/workspace/worktrees-location.js';
import { cleanupTempDirs, fingerprint, makeRepo, sh } from './git-fixtures.js';
import { bundledChild } from './bundled-child.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);


/** A backend plugin whose implementer writes a file, says so, then hangs until killed. */
const HANGING_BACKEND = `
import { writeFileSync } from 'node:fs';
const usage = { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
export function createBackend(settings) {
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'hang',
    async run(request) {
      if (request.role === 'triage') {
        return { ok: true, role: 'triage', usage, output: { decision: 'act', summary: 'work', findings: [], items: [{ key: 'mock#1', title: 'Tidy the example module', paths: ['src/example.ts'] }] } };
      }
      if (request.role === 'implement') {
        await request.files.write('src/example.ts', 'half-written by a tick that will crash\\n');
        writeFileSync(${JSON.stringify('MARKER')}, request.workspace.path);
        await new Promise(() => setInterval(() => {}, 1000));
      }
      return { ok: true, role: 'check', usage, output: { verdict: 'APPROVE', reasons: [] } };
    },
  };
}
`;

async function cli(cwd: string, argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await main(argv, { cwd, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stdout: (text) => (stdout += text), stderr: () => {} });
  return { code, stdout };
}

describe('crash in the middle of a tick', () => {
  it('kill -9 during the implementer → the next tick in a fresh process is clean and succeeds', async () => {
    // A verification command (sandboxed): without evidence a change is escalated, never proposed.
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'README.md': '# demo\n', 'LOOP.md': '---\nloop-runtime:\n  verify: ["true"]\n  loops: { daily-triage: {} }\n---\n# Loops\n' });
    const marker = join(root, '..', `${root.split('/').pop()}-implementing`);
    await writeFile(join(root, 'hang-backend.mjs'), HANGING_BACKEND.replace(JSON.stringify('MARKER'), JSON.stringify(marker)));
    sh(root, ['add', 'hang-backend.mjs']);
    sh(root, ['commit', '--quiet', '-m', 'backend plugin']);

    const child = spawn(process.execPath, [await bundledChild(join(import.meta.dirname, 'git-cli-driver.ts')), '--', '--cwd', root, 'run', 'daily-triage', '--level', 'L2', '--backend', './hang-backend.mjs'], {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, NO_COLOR: '1' },
    });
    const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
    for (let waited = 0; !existsSync(marker); waited += 50) {
      if (waited > 30_000) throw new Error('the child tick never reached the implementer');
      await new Promise((done) => setTimeout(done, 50));
    }
    const crashedPath = (await readFile(marker, 'utf8')).trim();
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const before = parseManifest(await readFile(join(worktreesDirFor(root), 'manifest.json'), 'utf8'));
    const crashed = before.worktrees[0]!;
    expect(crashed).toMatchObject({ status: 'active', pid: child.pid });
    expect(existsSync(crashedPath)).toBe(true);
    const mainBefore = await fingerprint(join(root, 'src'));

    const next = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--backend', 'mock', '--json']);
    const tick = cliJson(next.stdout).ticks[0];
    expect(tick.kind).toBe('proposed');

    const after = parseManifest(await readFile(join(worktreesDirFor(root), 'manifest.json'), 'utf8'));
    expect(after.worktrees.find((entry) => entry.id === crashed.id)).toMatchObject({ status: 'stale', released: true });
    expect(sh(root, ['branch', '--list', crashed.branch]).trim()).toBe('');
    expect(existsSync(crashedPath)).toBe(false);
    // The new commit holds the mock's change, not the crashed tick's half-written file.
    const committed = sh(root, ['show', `${tick.commit.branch}:src/example.ts`]);
    expect(committed).toContain('tidied by loop-runtime mock backend');
    expect(committed).not.toContain('half-written');
    // git knows only the main worktree, the new attempt's and pooled ones that exist on disk.
    const listed = sh(root, ['worktree', 'list', '--porcelain']).split('\n').filter((line) => line.startsWith('worktree ')).map((line) => line.slice(9));
    for (const path of listed) expect(existsSync(path)).toBe(true);
    expect(listed).not.toContain(crashedPath);
    expect(await fingerprint(join(root, 'src'))).toEqual(mainBefore);
  });
});
