/**
 * `discard <id>` and `reject <id>`: one path that drops a kept change — an escalated change, a verified local
 * proposal (its committed branch, often still checked out in its worktree, so `git branch -D` alone fails), or a
 * kept worktree — and records it. The worktree is recycled or removed and the branch deleted through the
 * workspace's own `discard`, the manifest entry is released, the run log and state file get a line, and a proposal
 * in outcomes.jsonl is observed `discarded`, so the one-open-proposal rule stops counting it.
 */
import { isRehearsalBranch } from '../core/outcomes/rehearsal-backend.js';
import { LoopRuntimeError } from '../core/errors.js';
import type { WorkspaceHandle } from '../core/ports/index.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { WorktreeEntry, WorktreeManifest } from '../core/workspace/worktree-manifest.js';
import { git } from '../adapters/git/git-run.js';
import { worktreeStoreFor } from '../composition/project-adapters.js';
import { resolvePlan, type LoadedProject } from '../project/load-project.js';
import { recordOutOfTick, type DecisionOptions } from './approval.js';
import { gitWorkspaceFor, redactorFor, type GitWiring } from '../composition/wiring.js';

export interface DiscardResult {
  status: 'discarded';
  id: string;
  pattern: string;
  branch: string;
  /** The committed change (a verified proposal), or null for a change never committed. */
  commit: string | null;
  /** What the change was: `escalated`, `proposed` (a verified, committed local proposal) or `kept` (a kept worktree). */
  was: 'escalated' | 'proposed' | 'kept';
}

/** A kept change of this repository: escalated and waiting, committed (a local proposal) or a kept worktree, with its branch still there. */
function isKept(entry: WorktreeEntry): boolean {
  if (entry.status === 'escalated' || entry.status === 'active') return !entry.released;
  return entry.status === 'merged' || (entry.status === 'rejected' && !entry.released);
}

/** The kept change under an id, an item key (the newest) or a branch name. */
export function findKept(manifest: WorktreeManifest, idOrKey: string): WorktreeEntry | undefined {
  const kept = manifest.worktrees.filter((entry) => isKept(entry) && entry.status !== 'active');
  return kept.find((entry) => entry.id === idOrKey) ?? kept.find((entry) => entry.branch === idOrKey) ?? kept.filter((entry) => entry.itemKey === idOrKey).sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}

async function branchExists(root: string, branch: string): Promise<boolean> {
  return (await git(root).tryRaw(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])) !== null;
}

/**
 * Drops a kept change and records `decision`. Refuses (USAGE) when nothing is kept under `idOrKey` and when the
 * change has an open pull request (closing it is the way to drop it; outcome tracking then records it closed).
 */
export async function discardKeptChange(project: LoadedProject, idOrKey: string, options: DecisionOptions, decision: 'discarded' | 'rejected' = 'discarded'): Promise<{ entry: WorktreeEntry; plan: ExecutionPlan; result: DiscardResult }> {
  const store = worktreeStoreFor(project.root, project.settings?.worktreesDir ?? null);
  const found = findKept(await store.read(), idOrKey);
  const entry = found && (await branchExists(project.root, found.branch)) ? found : undefined;
  if (!entry) {
    throw new LoopRuntimeError('USAGE', `Nothing is kept under "${idOrKey}": no escalated change, local proposal or kept worktree has that id, item key or branch.`, {
      fix: 'run `loop-runtime inbox` (escalated changes) or `loop-runtime status` (proposals) to see the ids.',
    });
  }
  const resolved = await resolvePlan(project, entry.pattern);
  if (!resolved.ok) {
    throw new LoopRuntimeError('PATTERN_NOT_FOUND', `The kept change ${entry.id} belongs to loop "${entry.pattern}", which is not configured any more.`, {
      fix: `restore the loop, or remove ${entry.path} and run \`git branch -D ${entry.branch}\` by hand.`,
    });
  }
  const outcomes = options.outcomes;
  const tracked = (await outcomes.history()).changes.find((change) => change.proposal.branch === entry.branch && (!entry.commit || change.proposal.commit === entry.commit));
  if (tracked && tracked.state === 'open' && tracked.proposal.delivery === 'pull-request') {
    const where = tracked.proposal.url ?? `the pull request of ${entry.branch}`;
    throw new LoopRuntimeError('USAGE', `${entry.id} (${entry.pattern}) has an open pull request: ${where}. Discarding the local branch would leave it open.`, {
      fix: `close it (\`gh pr close ${tracked.proposal.url ?? entry.branch} --delete-branch\`, or on GitHub); \`loop-runtime outcomes sync\` then records it closed and the loop may propose the item again.`,
    });
  }
  const wiring: GitWiring = { root: project.root, clock: options.clock, env: options.env, redact: redactorFor(options.env, project.root), worktreesDir: project.settings?.worktreesDir ?? null, deliveryLedger: options.deliveryLedger };
  const handle: WorkspaceHandle = { id: entry.id, path: store.absolutePath(entry.path), branch: entry.branch, baseCommit: entry.baseCommit ?? '', itemKey: entry.itemKey ?? entry.id };
  await gitWorkspaceFor(wiring, entry.pattern, entry.baseBranch ?? null).discard(handle);
  if (await branchExists(project.root, entry.branch)) {
    // The workspace's discard never throws (a tick must not fail on clean-up); a human asked, so say it did not work.
    throw new LoopRuntimeError('WORKSPACE_FAILED', `Could not delete ${entry.branch} (is it checked out somewhere else?).`, { fix: `run \`git worktree list\`, remove the worktree that holds ${entry.branch}, then \`git branch -D ${entry.branch}\`.` });
  }
  const now = options.clock.now();
  if (tracked && tracked.state === 'open') {
    await outcomes.append([{ type: 'observation', at: new Date(now).toISOString(), pattern: entry.pattern, commit: tracked.proposal.commit, state: 'discarded', via: 'human' }]);
  }
  const was: DiscardResult['was'] = entry.status === 'escalated' ? 'escalated' : entry.status === 'merged' ? 'proposed' : 'kept';
  await recordOutOfTick(project.root, resolved.plan, { pattern: entry.pattern, itemKey: entry.itemKey ?? entry.id, ...(entry.tickId ? { tickId: entry.tickId } : {}) }, wiring.redact, now, decision === 'rejected' ? `rejected by a human; ${entry.branch} discarded` : `discarded by a human; ${entry.branch} and its worktree removed`, {
    kind: `human-${decision}`,
    outcome: 'no-op',
    actionsTaken: 0,
    decided: true,
    rehearsal: isRehearsalBranch(entry.branch, entry.pattern),
  });
  return { entry, plan: resolved.plan, result: { status: 'discarded', id: entry.id, pattern: entry.pattern, branch: entry.branch, commit: entry.commit ?? null, was } };
}
