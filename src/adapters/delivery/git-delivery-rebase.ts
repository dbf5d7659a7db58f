/** Rebasing a delivery branch onto a base branch that moved during the tick. */
import type { DeliveryFailure, DeliveryRequest } from '../../core/ports/index.js';
import { git, identityEnv, type GitRunner } from '../git/git-run.js';
import { isDirectory } from '../workspace/git-worktree-store.js';

/**
 * Rebases the branch onto the base's current tip (fetched from `remote` when
 * given) when the base moved during the tick. A conflict aborts the rebase
 * and names the files.
 */
export async function rebaseIfMoved(
  rootGit: GitRunner,
  request: DeliveryRequest,
  baseBranch: string | null,
  remote: string | null,
  author: { name: string; email: string },
): Promise<{ ok: true } | DeliveryFailure> {
  if (!baseBranch) return { ok: true };
  let tip: string | null = null;
  if (remote) {
    await rootGit.tryRaw(['fetch', '--quiet', remote, `refs/heads/${baseBranch}:refs/remotes/${remote}/${baseBranch}`]);
    tip = (await rootGit.tryRaw(['rev-parse', '--verify', '--quiet', `refs/remotes/${remote}/${baseBranch}^{commit}`]))?.trim() || null;
  }
  tip ??= (await rootGit.tryRaw(['rev-parse', '--verify', '--quiet', `refs/heads/${baseBranch}^{commit}`]))?.trim() || null;
  if (!tip || tip === request.handle.baseCommit) return { ok: true };
  const branch = request.handle.branch;
  if ((await rootGit.tryRaw(['merge-base', '--is-ancestor', tip, `refs/heads/${branch}`])) !== null) return { ok: true };
  const conflict = (message: string, detail: Record<string, unknown> = {}): DeliveryFailure => ({ ok: false, reason: 'conflict', message, retryable: false, detail });
  if (!(await isDirectory(request.handle.path))) {
    return conflict(`The base ${baseBranch} moved to ${tip.slice(0, 12)} and the worktree of ${branch} is gone, so it cannot be rebased. To fix: rebase ${branch} by hand.`);
  }
  const worktree = git(request.handle.path);
  const rebased = await worktree.tryRaw(['rebase', '--quiet', tip], identityEnv(author));
  if (rebased !== null) return { ok: true };
  const conflicted = ((await worktree.tryRaw(['diff', '--name-only', '--diff-filter=U'])) ?? '').split('\n').filter(Boolean);
  await worktree.tryRaw(['rebase', '--abort']);
  const files = conflicted.length ? conflicted.join(', ') : 'unknown files';
  return conflict(
    `The base ${baseBranch} moved during the tick (${request.handle.baseCommit.slice(0, 12)} → ${tip.slice(0, 12)}) and rebasing ${branch} onto it conflicts in: ${files}. To fix: resolve the conflict in ${request.handle.path} by hand, or reject the change and let the next tick start from the new base.`,
    { conflicts: conflicted, base: tip },
  );
}
