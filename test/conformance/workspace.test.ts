/**
 * Both workspaces against one contract: the memory twin and the git worktree
 * workspace over a real temporary repository.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';
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
