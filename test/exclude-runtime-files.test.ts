import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { excludeRuntimeFiles } from '../src/adapters/git/exclude-runtime-files.js';
import { main } from '../src/cli/main.js';
import { ensureToken } from '../src/server/guard.js';
import { cleanupTempDirs, makeRepo, sh, tempDir } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const LOOP_MD = `---
loop-runtime:
  backend: mock
  verify:
    - "true"
  loops:
    daily-triage: {}
---
# Loops
`;

/** What `git add -A` would stage, as the user would run it. */
function stagedByAddAll(root: string): string[] {
  sh(root, ['add', '-A']);
  return sh(root, ['diff', '--cached', '--name-only']).split('\n').filter(Boolean);
}

describe('what loop-runtime writes into a checkout stays out of commits (.git/info/exclude)', () => {
  it('a real tick and the console token: git add -A stages none of .loop-runtime/', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD });
    const code = await main(['run', 'daily-triage', '--level', 'L2', '--json'], { cwd: root, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stdout: () => {}, stderr: () => {} });
    expect(code).toBe(0);
    await ensureToken(root);
    expect(sh(root, ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory'])).toContain('.loop-runtime/');
    const staged = stagedByAddAll(root);
    // The allowed twin: the methodology's files that the tick wrote (state file, run log) are the team's to commit.
    expect(staged.some((path) => path.startsWith('.loop-runtime'))).toBe(false);
    expect(staged).toEqual(expect.arrayContaining(['loop-run-log.md']));
    const exclude = await readFile(join(root, '.git', 'info', 'exclude'), 'utf8');
    expect(exclude.match(/^\/\.loop-runtime\/$/gm)).toHaveLength(1);
  });

  it('keeps the user\'s own exclude lines, adds its lines once, and scopes them to a project in a subdirectory', async () => {
    const root = await makeRepo();
    await mkdir(join(root, '.git', 'info'), { recursive: true });
    await writeFile(join(root, '.git', 'info', 'exclude'), '*.local');
    await mkdir(join(root, 'services', 'api'), { recursive: true });
    await excludeRuntimeFiles(join(root, 'services', 'api'));
    await excludeRuntimeFiles(join(root, 'services', 'api'));
    const text = await readFile(join(root, '.git', 'info', 'exclude'), 'utf8');
    expect(text.startsWith('*.local\n# loop-runtime:')).toBe(true);
    expect(text.match(/^\/services\/api\/\.loop-runtime\/$/gm)).toHaveLength(1);
    await writeFile(join(root, 'services', 'api', 'kept.txt'), 'a file of the project\n');
    await mkdir(join(root, 'services', 'api', '.loop-runtime'), { recursive: true });
    await writeFile(join(root, 'services', 'api', '.loop-runtime', 'serve-token'), 'secret\n');
    // A .loop-runtime/ elsewhere in the repository is not ours to hide.
    await mkdir(join(root, 'docs', '.loop-runtime'), { recursive: true });
    await writeFile(join(root, 'docs', '.loop-runtime', 'notes.md'), 'committed on purpose\n');
    expect(stagedByAddAll(root).sort()).toEqual(['docs/.loop-runtime/notes.md', 'services/api/kept.txt']);
  });

  it('a checkout that is itself a linked worktree writes the shared exclude file', async () => {
    const main = await makeRepo();
    const linked = join(await tempDir('loop-linked-'), 'linked');
    sh(main, ['worktree', 'add', '--quiet', '-b', 'side', linked]);
    await excludeRuntimeFiles(linked);
    await mkdir(join(linked, '.loop-runtime'), { recursive: true });
    await writeFile(join(linked, '.loop-runtime', 'serve-token'), 'secret\n');
    expect(await readFile(join(main, '.git', 'info', 'exclude'), 'utf8')).toContain('/.loop-runtime/');
    expect(stagedByAddAll(linked)).toEqual([]);
  });

  it('outside a git repository it writes nothing and does not fail', async () => {
    const dir = await tempDir('loop-no-git-');
    await expect(excludeRuntimeFiles(dir)).resolves.toBeUndefined();
  });
});
