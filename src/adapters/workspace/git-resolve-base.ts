/**
 * Which commit an attempt starts from, read from the user's repository
 * without writing to it.
 */
import { git } from '../git/git-run.js';

export interface ResolvedBase {
  commit: string;
  /** The branch name recorded as `baseBranch` (null when HEAD is detached). */
  branch: string | null;
}

/**
 * The base for a tick: the named branch's commit (local branch, then
 * `origin/<name>`, then any revision), or the commit of the branch HEAD is on.
 */
export async function resolveBase(root: string, baseBranch: string | null): Promise<ResolvedBase> {
  const repository = git(root);
  if (baseBranch) {
    for (const candidate of [`refs/heads/${baseBranch}`, `refs/remotes/origin/${baseBranch}`, baseBranch]) {
      const commit = await repository.tryRaw(['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`]);
      if (commit?.trim()) return { commit: commit.trim(), branch: baseBranch };
    }
    throw new Error(`the base branch "${baseBranch}" does not exist in ${root}. To fix: create it, or set baseBranch to an existing branch.`);
  }
  // One process for both: the commit, then the branch as `symbolic-ref --short` names it (`HEAD` when detached;
  // git allows no branch of that name). It fails when HEAD has no commit yet.
  const [commit, abbreviated] = ((await repository.tryRaw(['rev-parse', 'HEAD^{commit}', '--abbrev-ref=loose', 'HEAD', '--'])) ?? '').split('\n');
  if (!commit || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(commit)) {
    throw new Error(`${root} is not a git repository with at least one commit. To fix: run \`git init\` and commit once, then run the loop again.`);
  }
  const branch = abbreviated && abbreviated !== 'HEAD' ? abbreviated : null;
  return { commit, branch };
}
