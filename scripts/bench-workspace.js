/**
 * Workspace setup per tick on a generated repository of 20,000 files:
 * a fresh `git worktree add` (a full checkout) against GitWorkspace.prepare()
 * reusing a pooled worktree. Called by scripts/bench.js; needs `npm run build`.
 *
 * `reuseMs` is the honest per-tick case: the base moved since the last tick
 * (a new commit on main), so the pooled worktree is reset to the new base
 * (`checkout --force -B` + `clean -fdx`). `reuseSameBaseMs` is the case where
 * the base did not move (only the branch is switched).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.test', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.test' };
const gitSync = (cwd, args) => execFileSync('git', args, { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function generateRepository(files) {
  const repo = mkdtempSync(join(tmpdir(), 'loop-bench-workspace-'));
  gitSync(repo, ['init', '--quiet', '--initial-branch=main']);
  const perDirectory = 100;
  for (let index = 0; index < files; index++) {
    const directory = join(repo, 'src', `module-${Math.floor(index / perDirectory)}`);
    if (index % perDirectory === 0) mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, `file-${index % perDirectory}.ts`), `export const value${index} = ${index};\n// ${'x'.repeat(index % 200)}\n`);
  }
  gitSync(repo, ['add', '--all']);
  gitSync(repo, ['commit', '--quiet', '-m', 'generated']);
  return repo;
}

/** @returns {Promise<{ freshAddMs: number, reuseMs: number, reuseSameBaseMs: number, ratio: number, files: number }>} */
export async function benchWorkspace({ files = 20_000, runs = 3 } = {}) {
  const { GitWorkspace } = await import(join(root, 'dist', 'src', 'adapters', 'workspace', 'git-workspace.js'));
  const repo = generateRepository(files);
  try {
    const fresh = [];
    for (let index = 0; index < runs; index++) {
      const path = join(repo, '.bench-fresh', String(index));
      const started = process.hrtime.bigint();
      gitSync(repo, ['worktree', 'add', '--quiet', '--detach', path, 'HEAD']);
      fresh.push(Number(process.hrtime.bigint() - started) / 1e6);
      gitSync(repo, ['worktree', 'remove', '--force', path]);
    }

    let now = Date.parse('2026-01-01T00:00:00Z');
    const workspace = new GitWorkspace({ root: repo, patternId: 'bench', clock: { now: () => (now += 1000) }, poolSize: 1 });
    const request = (index) => ({ tickId: `tick-${index}`, patternId: 'bench', item: { key: `item#${index}`, title: 'bench' }, branchPrefix: 'loop/bench/', baseBranch: null });
    const seed = await workspace.prepare(request(0));
    if (!seed.ok) throw new Error(seed.message);
    await workspace.discard(seed.handle);

    const timedPrepare = async (index) => {
      const started = process.hrtime.bigint();
      const prepared = await workspace.prepare(request(index));
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (!prepared.ok) throw new Error(prepared.message);
      // Leave a dirty, untracked-file-laden tree behind, as an agent would.
      writeFileSync(join(prepared.handle.path, 'src', 'module-0', 'file-0.ts'), 'changed by the agent\n');
      writeFileSync(join(prepared.handle.path, 'agent-notes.txt'), 'scratch\n');
      await workspace.discard(prepared.handle);
      return ms;
    };

    const moved = [];
    for (let index = 1; index <= runs; index++) {
      writeFileSync(join(repo, 'src', 'module-1', 'file-1.ts'), `export const moved = ${index};\n`);
      gitSync(repo, ['commit', '--quiet', '-am', `base moves ${index}`]);
      moved.push(await timedPrepare(index));
    }
    const same = [];
    for (let index = runs + 1; index <= 2 * runs; index++) same.push(await timedPrepare(index));

    const freshAddMs = Math.round(median(fresh));
    const reuseMs = Math.round(median(moved));
    return { freshAddMs, reuseMs, reuseSameBaseMs: Math.round(median(same)), ratio: Math.round((median(moved) / median(fresh)) * 1000) / 1000, files };
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await benchWorkspace());
}
