/**
 * File access confined to one worktree: relative paths only, no `..`, no
 * `.git`, and no symlink (file or parent directory) leading outside. Every
 * refusal is a thrown `LoopRuntimeError` (`WORKSPACE_FAILED`) before any I/O
 * on the target.
 */
import { lstat, mkdir, readFile, realpath, unlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { WorkspaceFiles } from '../../core/ports/index.js';
import { LoopRuntimeError } from '../../core/errors.js';
import { checkRelativePath } from './workspace-path.js';

export { checkRelativePath } from './workspace-path.js';

function isInside(root: string, target: string): boolean {
  const inside = relative(root, target);
  return inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside));
}

/**
 * `hooks.onWrite` is called before each write or removal (GitWorkspace forgets there that the worktree matched the
 * reviewed tree).
 *
 * @example
 * ```ts
 * const files = confinedFiles('/repo/.loop-worktrees/abc');
 * await files.write('src/a.ts', 'export {};\n');
 * await files.write('../escape', 'x'); // throws: climbs out with ".."
 * ```
 */
export function confinedFiles(workspaceRoot: string, hooks: { onWrite?: () => void } = {}): WorkspaceFiles {
  let realRoot: Promise<string> | null = null;
  const root = () => (realRoot ??= realpath(workspaceRoot));

  /** The real path of the deepest existing ancestor must stay inside the real root. */
  const resolveInside = async (path: string): Promise<string> => {
    const segments = checkRelativePath(path);
    const base = await root();
    const target = join(base, ...segments);
    let probe = target;
    for (;;) {
      try {
        const real = await realpath(probe);
        if (!isInside(base, real)) {
          throw new LoopRuntimeError('WORKSPACE_FAILED', `Refused workspace path ${JSON.stringify(path)}: a symbolic link leads outside the workspace.`, {
            fix: 'write the file itself, not through a link.',
          });
        }
        break;
      } catch (error) {
        if (error instanceof LoopRuntimeError) throw error;
        const parent = dirname(probe);
        if (parent === probe || !isInside(base, parent)) break;
        probe = parent;
      }
    }
    return target;
  };

  return {
    async read(path) {
      const target = await resolveInside(path);
      try {
        return await readFile(target, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return null;
        throw error;
      }
    },
    async write(path, content) {
      hooks.onWrite?.();
      const target = await resolveInside(path);
      await mkdir(dirname(target), { recursive: true });
      // A dangling symlink resolves nowhere above; refuse to write through any link.
      const existing = await lstat(target).catch(() => null);
      if (existing?.isSymbolicLink()) {
        throw new LoopRuntimeError('WORKSPACE_FAILED', `Refused workspace path ${JSON.stringify(path)}: it is a symbolic link.`, {
          fix: 'remove the link first or write a regular file.',
        });
      }
      await writeFile(target, content, 'utf8');
    },
    async remove(path) {
      hooks.onWrite?.();
      const target = await resolveInside(path);
      try {
        await unlink(target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT') throw error;
      }
    },
  };
}
