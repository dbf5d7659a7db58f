/**
 * What git alone says about a delivered commit: is it in the base branch
 * (`git merge-base --is-ancestor`, against the local branch and its
 * remote-tracking twin), and did a later commit on the base revert it (a
 * commit whose message says "This reverts commit <sha>" for the loop's commit
 * or the commit that landed it, or that names the loop's `Loop-Tick` and
 * says it reverts). No fetch: what the local repository knows.
 */
import { git } from '../git/git-run.js';

export interface GitChangeState {
  /** The base ref that holds the commit, or null. */
  mergedInto: string | null;
  /** Committer time (ISO) of the first base commit after the loop's commit, as the merge time; null when unknown. */
  mergedAt: string | null;
  revertedBy: string | null;
}

/** Local and remote-tracking refs for a base branch that exist. */
export async function baseRefs(root: string, base: string, remote = 'origin'): Promise<string[]> {
  const refs: string[] = [];
  for (const ref of [`refs/heads/${base}`, `refs/remotes/${remote}/${base}`]) {
    if ((await git(root).tryRaw(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]))?.trim()) refs.push(ref);
  }
  return refs;
}

/** The branch HEAD is on, for proposals recorded without a base. */
export async function headBranch(root: string): Promise<string | null> {
  return (await git(root).tryRaw(['symbolic-ref', '--quiet', '--short', 'HEAD']))?.trim() || null;
}

export async function isAncestor(root: string, commit: string, ref: string): Promise<boolean> {
  return (await git(root).tryRaw(['merge-base', '--is-ancestor', commit, ref])) !== null;
}

export async function commitExists(root: string, commit: string): Promise<boolean> {
  return Boolean((await git(root).tryRaw(['cat-file', '-e', `${commit}^{commit}`])) !== null);
}

/**
 * Looks for a revert of `commits` (the loop's commit and, for a squash merge,
 * the commit that landed it) or of tick `tickId` on `refs`.
 */
export async function findRevert(root: string, refs: readonly string[], commits: readonly string[], tickId: string | null): Promise<string | null> {
  if (refs.length === 0) return null;
  const needles = [...commits, ...(tickId ? [tickId] : [])];
  const args = ['log', '--format=%H%x1f%B%x1e', '-F', ...needles.flatMap((needle) => ['--grep', needle]), ...refs, '--'];
  const output = (await git(root).tryRaw(args)) ?? '';
  for (const record of output.split('\x1e')) {
    const [sha, body = ''] = record.trim().split('\x1f');
    if (!sha || commits.some((commit) => sha.startsWith(commit) || commit.startsWith(sha))) continue;
    const revertsCommit = commits.some((commit) => body.includes(`This reverts commit ${commit}`));
    const revertsTick = tickId !== null && /\brevert/i.test(body) && body.includes(tickId);
    if (revertsCommit || revertsTick) return sha;
  }
  return null;
}

/** Ancestry and revert state of a commit against the base branch. */
export async function gitChangeState(root: string, commit: string, base: string, options: { tickId: string | null; landedAs?: string; remote?: string }): Promise<GitChangeState> {
  const refs = await baseRefs(root, base, options.remote);
  let mergedInto: string | null = null;
  for (const ref of refs) {
    if (await isAncestor(root, options.landedAs ?? commit, ref)) {
      mergedInto = ref;
      break;
    }
  }
  let mergedAt: string | null = null;
  if (mergedInto && !options.landedAs) {
    const path = (await git(root).tryRaw(['log', '--ancestry-path', '--reverse', '--format=%cI', `${commit}..${mergedInto}`])) ?? '';
    mergedAt = path.split('\n').find((line) => line.trim())?.trim() ?? null;
  }
  const revertedBy = await findRevert(root, refs, [commit, ...(options.landedAs ? [options.landedAs] : [])], options.tickId);
  return { mergedInto, mergedAt, revertedBy };
}
