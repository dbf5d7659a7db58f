/**
 * The per-repository adapters that use cases outside a tick need (the inbox's worktree manifest, the console's
 * lease column, `reset --mock`, a refused tick's record, a retried delivery's proposal; outcomes come from `ProjectStores.outcomes()`), built here and
 * nowhere else: a use case asks the composition root for the adapter behind a port instead of naming its class,
 * so which class backs a port is decided in one place (test/composition-root.test.ts holds the rule).
 *
 * The git workspace and delivery come from `wiring.ts` (`gitWorkspaceFor`, `bareGitWorkspace`, `bareGitDelivery`).
 *
 * @example
 * ```ts
 * const manifest = await worktreeStoreFor(project.root, project.settings?.worktreesDir ?? null).read();
 * ```
 */
import type { Clock } from '../core/ports/index.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import { FileLeases } from '../adapters/leases/file-leases.js';
import { FileStateWriter } from '../adapters/state-writer/file-state-writer.js';
import { WorktreeStore } from '../adapters/workspace/git-worktree-store.js';

/** The worktree manifest of the repository's loops (where `worktreesDir` puts it). */
export function worktreeStoreFor(root: string, worktreesDir: string | null = null): WorktreeStore {
  return new WorktreeStore(root, worktreesDir);
}

/** The file leases under `.loop-runtime/leases/` (read by the console; taken by `reset --mock`). */
export function fileLeasesFor(root: string, clock?: Clock): FileLeases {
  return new FileLeases({ root, ...(clock ? { now: () => clock.now() } : {}) });
}

/** A loop's state file and run log, as a tick's writer records them. */
export function stateWriterFor(root: string, plan: ExecutionPlan, redact: (text: string) => string): FileStateWriter {
  return new FileStateWriter({ root, stateFile: plan.files.state, runLog: plan.files.runLog, redact, backend: plan.backend.name });
}
