/**
 * Delivery test setups: a real repository with a bare remote, a GitWorkspace,
 * and requests carrying a real commit on their own branch.
 */
import type { DeliveryRequest } from '../src/core/ports/index.js';
import type { ExecutionPlan } from '../src/core/plan/execution-plan.js';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import type { FixedClock } from '../src/testing/fixed-clock.js';

let ticks = 0;

/** Prepares a worktree for `itemKey`, commits one file there and returns the request to deliver it. */
export async function committedRequest(root: string, plan: ExecutionPlan, clock: FixedClock, itemKey: string, merge = false): Promise<DeliveryRequest> {
  const workspace = new GitWorkspace({ root, patternId: plan.pattern.id, clock });
  ticks += 1;
  const prepared = await workspace.prepare({ tickId: `t${ticks}`, patternId: plan.pattern.id, item: { key: itemKey, title: `Fix ${itemKey}` }, branchPrefix: plan.delivery.branchPrefix, baseBranch: null });
  if (!prepared.ok) throw new Error(prepared.message);
  await workspace.files(prepared.handle).write(`docs/fix-${ticks}.md`, `fixed ${itemKey}\n`);
  // commit() records what changes() reported, so the gate's view comes first.
  const changes = await workspace.changes(prepared.handle);
  if (!changes.ok) throw new Error(changes.message);
  const commit = await workspace.commit(prepared.handle, { message: `fix ${itemKey}`, trailers: {}, author: plan.delivery.author });
  if (!commit.ok) throw new Error(commit.message);
  return {
    handle: prepared.handle,
    commit: commit.commit,
    patternId: plan.pattern.id,
    itemKey,
    dedupeKey: `${plan.pattern.id}:${itemKey}`,
    title: `${plan.pattern.name}: Fix ${itemKey}`,
    body: 'evidence',
    merge,
  };
}
