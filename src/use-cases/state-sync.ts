/**
 * `state pull|push`: keep the runtime's state (spend journal, run logs, state files, attempt ledgers, lease
 * history) on a dedicated branch so ephemeral CI runners remember budgets, attempts and last-run times between
 * runs. Works without a loadable configuration: then the default state files travel (a runner must still be able
 * to pull the state that a broken commit's fix needs).
 *
 * @example
 * ```ts
 * const synced = await syncState({ action: 'pull', root: '/repo', remote: 'origin', env: process.env, progress: console.error });
 * ```
 */
import type { StateFile, StateSyncResult } from '../adapters/state-branch/state-branch.js';

export interface StateSyncRequest {
  action: 'pull' | 'push';
  root: string;
  remote: string;
  /** Default `loop-runtime-state`. */
  branch?: string | undefined;
  env: Record<string, string | undefined>;
  /** Told where the state goes before the git work starts. */
  progress?: (line: string) => void;
}

export type StateSync = StateSyncResult & { action: 'pull' | 'push' };

/** The state files of the project's configured loops (defaults when the project does not load). */
export async function projectStateFiles(root: string): Promise<StateFile[]> {
  const { stateFilesFor } = await import('../adapters/state-branch/state-branch.js');
  const { loadProject, resolvePlan } = await import('../project/load-project.js');
  const loaded = await loadProject(root);
  const files: Array<{ state: string; runLog: string; ledger: string }> = [];
  if (loaded.ok) {
    for (const id of loaded.project.configuredLoops) {
      const resolved = await resolvePlan(loaded.project, id);
      if (resolved.ok) files.push(resolved.plan.files);
    }
  }
  if (files.length === 0) files.push({ state: 'STATE.md', runLog: 'loop-run-log.md', ledger: 'loop-ledger.json' });
  return stateFilesFor(files);
}

export async function syncState(request: StateSyncRequest): Promise<StateSync> {
  const { DEFAULT_STATE_BRANCH, pullState, pushState } = await import('../adapters/state-branch/state-branch.js');
  const branch = request.branch ?? DEFAULT_STATE_BRANCH;
  const files = await projectStateFiles(request.root);
  request.progress?.(`state ${request.action}: ${request.remote}/${branch} (${files.length} file(s))`);
  const result = await (request.action === 'pull' ? pullState : pushState)({ root: request.root, remote: request.remote, branch, files, env: request.env });
  return { action: request.action, ...result };
}
