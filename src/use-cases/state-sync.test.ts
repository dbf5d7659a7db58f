/**
 * `state push|pull` through the use case, on real git: when the configuration does not load, the default state files
 * still travel (a runner must be able to carry state while a broken config is being fixed), as before the command
 * became parse → syncState → render.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../project/load-project.js';
import { projectStateFiles, syncState } from './state-sync.js';

const ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function brokenProject(): Promise<{ root: string; remote: string }> {
  const base = await mkdtemp(join(tmpdir(), 'state-sync-'));
  dirs.push(base);
  const remote = join(base, 'remote.git');
  const root = join(base, 'work');
  git(base, 'init', '-q', '--bare', '-b', 'main', remote);
  git(base, 'clone', '-q', remote, root);
  await writeFile(join(root, 'registry.yaml'), 'patterns: [unclosed\n');
  await writeFile(join(root, 'STATE.md'), '# Loop State\nLast run: never\n');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'init');
  git(root, 'push', '-q', 'origin', 'HEAD:main');
  return { root, remote };
}

describe('syncState', () => {
  it('with a configuration that does not load: the default state files travel (pull before the branch exists, then push)', async () => {
    const { root } = await brokenProject();
    expect((await loadProject(root)).ok).toBe(false);
    expect((await projectStateFiles(root)).map((file) => file.path)).toEqual(expect.arrayContaining(['STATE.md', 'loop-run-log.md', 'loop-ledger.json']));
    const said: string[] = [];
    const pulledFirst = await syncState({ action: 'pull', root, remote: 'origin', env: ENV, progress: (line) => said.push(line) });
    expect(pulledFirst).toMatchObject({ action: 'pull', remote: 'origin', branch: 'loop-runtime-state', commit: null });
    await writeFile(join(root, 'STATE.md'), '# Loop State\nLast run: 2026-11-27\n');
    const pushed = await syncState({ action: 'push', root, remote: 'origin', env: ENV, progress: (line) => said.push(line) });
    expect(pushed).toMatchObject({ action: 'push', pushed: true, branch: 'loop-runtime-state' });
    expect(git(root, 'show', `${pushed.commit!}:STATE.md`)).toContain('Last run: 2026-11-27');
    expect(said[0]).toMatch(/^state pull: origin\/loop-runtime-state \(\d+ file\(s\)\)$/);
    // The twin: nothing new, nothing pushed.
    expect(await syncState({ action: 'push', root, remote: 'origin', branch: 'loop-runtime-state', env: ENV })).toMatchObject({ pushed: false });
  });
});
