/**
 * Both workspaces against one contract: the memory twin and the git worktree
 * workspace over a real temporary repository.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../src/adapters/workspace/git-workspace.js';
import { MemoryWorkspace } from '../../src/adapters/workspace/memory-workspace.js';
import { FixedClock } from '../../src/testing/fixed-clock.js';
import { describeWorkspaceConformance } from '../../src/testing/conformance/index.js';
import { cleanupTempDirs, makeRepo, sh, tempDir } from '../git-fixtures.js';

afterAll(cleanupTempDirs);

describeWorkspaceConformance('MemoryWorkspace', async (files) => {
  const workspace = new MemoryWorkspace({ files: { ...files } });
  const attempt = (id: string) => workspace.inspect().find((candidate) => candidate.handle.id === id);
  return {
    workspace,
    leftover: async (handle, path) => attempt(handle.id)?.edits[path] ?? null,
    committedPaths: async (handle) => Object.keys(attempt(handle.id)?.commit?.files ?? {}).sort(),
  };
});

describeWorkspaceConformance('GitWorkspace (real repository)', async (files) => {
  const root = await makeRepo({ ...files });
  const workspace = new GitWorkspace({ root, patternId: 'conformance', clock: new FixedClock('2026-11-23T10:00:00Z') });
  const branchHas = (branch: string) => sh(root, ['branch', '--list', branch]).trim() !== '';
  return {
    workspace,
    async leftover(handle, path) {
      if (existsSync(join(handle.path, path))) return readFile(join(handle.path, path), 'utf8');
      if (!branchHas(handle.branch)) return null;
      try {
        return sh(root, ['show', `refs/heads/${handle.branch}:${path}`]);
      } catch {
        return null;
      }
    },
    async committedPaths(handle) {
      if (!branchHas(handle.branch)) return [];
      const output = sh(root, ['diff', '--name-only', '--no-renames', '-z', handle.baseCommit, `refs/heads/${handle.branch}`]);
      return output.split('\0').filter(Boolean).sort();
    },
    async linkOutside(handle, link) {
      const outside = await tempDir('loop-outside-');
      await mkdir(outside, { recursive: true });
      await writeFile(join(outside, 'secret.txt'), 'secret\n');
      await symlink(outside, join(handle.path, link));
      return { read: (name) => readFile(join(outside, name), 'utf8').catch(() => null) };
    },
  };
});

describe('MemoryWorkspace patches are real git diffs', () => {
  it('`git apply --index` takes the memory patch and yields exactly the memory files', async () => {
    const base = { 'a.txt': 'one\ntwo\nthree\n', 'no-eol.txt': 'last line', 'gone.txt': 'bye\n', 'moved/from.md': 'same\ncontent\n', 'empty.txt': '' };
    const workspace = new MemoryWorkspace({ files: base });
    const prepared = await workspace.prepare({ tickId: 't', patternId: 'p', item: { key: 'k', title: 't' }, branchPrefix: 'loop/p/', baseBranch: null });
    if (!prepared.ok) throw new Error(prepared.message);
    const files = workspace.files(prepared.handle);
    const after = { 'a.txt': 'one\n2\nthree\nfour\n', 'no-eol.txt': 'last line, edited', 'new dir/new file.ts': 'export {};\n', 'moved/to.md': 'same\ncontent\n', 'empty-new.txt': '' };
    for (const [path, content] of Object.entries(after)) await files.write(path, content);
    for (const path of ['gone.txt', 'moved/from.md', 'empty.txt']) await files.remove(path);
    const changes = await workspace.changes(prepared.handle);
    if (!changes.ok) throw new Error(changes.message);

    const root = await makeRepo(base);
    const patchFile = join(await tempDir('loop-patch-'), 'memory.patch');
    await writeFile(patchFile, changes.changes.patch);
    sh(root, ['apply', '--index', '--whitespace=nowarn', patchFile]);
    const status = sh(root, ['diff', '--cached', '--name-status', '--find-renames', 'HEAD']).trim().split('\n').sort();
    expect(status).toEqual(['A\tnew dir/new file.ts', 'D\tgone.txt', 'M\ta.txt', 'M\tno-eol.txt', 'R100\tempty.txt\tempty-new.txt', 'R100\tmoved/from.md\tmoved/to.md']);
    expect(changes.changes.files.map((file) => `${file.status} ${file.from ?? ''}→${file.path}`)).toEqual([
      'modified →a.txt',
      'renamed empty.txt→empty-new.txt',
      'deleted →gone.txt',
      'renamed moved/from.md→moved/to.md',
      'added →new dir/new file.ts',
      'modified →no-eol.txt',
    ]);
    for (const [path, content] of Object.entries(after)) expect(await readFile(join(root, path), 'utf8')).toBe(content);
  });
});
