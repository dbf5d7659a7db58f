/**
 * A repository the console serves: an id that requests use (its position,
 * never a path), a display name, and the runtime opened through the one
 * wiring path (`openRuntime`).
 */
import { basename } from 'node:path';
import { formatDiagnostic } from '../core/config/diagnostics.js';
import { LoopRuntimeError } from '../core/errors.js';
import type { Clock } from '../core/ports/index.js';
import type { Runtime } from '../composition/runtime.js';

export interface ServedRepository {
  id: string;
  name: string;
  runtime: Runtime;
}

/** Opens each repository's runtime; the first configuration problem stops the start with every issue named. */
export async function openRepositories(roots: readonly string[], env: Record<string, string | undefined>, clock: Clock): Promise<ServedRepository[]> {
  // Imported like the CLI does: a static import here gives the CLI's `import()` of the runtime a facade chunk.
  const { openRuntime } = await import('../composition/runtime.js');
  const repos: ServedRepository[] = [];
  for (const [index, root] of roots.entries()) {
    const opened = await openRuntime({ cwd: root, env, clock });
    if (!opened.ok) {
      throw new LoopRuntimeError('CONFIG_INVALID', `Cannot serve ${root}: ${opened.issues.map(formatDiagnostic).join('; ')}`, {
        fix: 'run `loop-runtime validate` in that repository and fix what it reports.',
      });
    }
    repos.push({ id: String(index), name: basename(opened.runtime.project.root), runtime: opened.runtime });
  }
  return repos;
}

/** The repository a request names by id (`?repo=0`); the first when it names none. */
export function pickRepository(repos: readonly ServedRepository[], id: string | undefined): ServedRepository | null {
  if (id === undefined || id === '') return repos[0] ?? null;
  return repos.find((repo) => repo.id === id) ?? null;
}
