/**
 * The one key for "this workflow is failing on this branch", used by both ci-sweeper paths: the scheduled probe's
 * failing runs (interpret-probe.ts `toWorkItem`) and the `workflow_run` event's run (src/ci/github-event.ts). One key
 * per workflow and branch, not per run: a second failure of the same workflow on the same branch — a later run, a
 * re-run, the event after the probe saw it — is the same item, so the item lease, the attempts and the
 * one-open-proposal rule hold across both paths. Pure.
 *
 * Until 2026-11-27 the probe keyed a failure by its run (`ci-run#<id>`); proposals recorded under that key stay in
 * users' outcome stores, delivery ledgers and kept worktrees. The item carries that form in `formerKeys`, and the
 * engine counts a proposal under either key as this item's (a stored `ci-run#<id>` still dedupes run `<id>`).
 */
import type { WorkItem } from '../ports/index.js';
import { plainLine } from '../security/untrusted-text.js';

export interface CiFailure {
  /** The workflow's `name:` (`workflowName` in `gh run list`, `workflow_run.name` in the event). */
  workflow: string;
  /** The run's head branch (`headBranch`, `workflow_run.head_branch`). */
  branch: string;
  /** The failed run's id (`databaseId`, `workflow_run.id`), when known. */
  runId?: number | string | undefined;
}

/** The prefix of the key; an item key that starts with it is a CI failure. */
export const CI_FAILURE_PREFIX = 'ci:';

/**
 * The item key and the earlier form of the same item.
 *
 * @example
 * ```ts
 * ciFailureKeys({ workflow: 'CI', branch: 'main', runId: 4242 }); // → { key: 'ci:CI@main', formerKeys: ['ci-run#4242'] }
 * ciFailureKeys({ workflow: 'CI', branch: 'main' });              // → { key: 'ci:CI@main' }
 * ```
 */
export function ciFailureKeys(failure: CiFailure): Pick<WorkItem, 'key' | 'formerKeys'> {
  const workflow = plainLine(failure.workflow, 80) || 'workflow';
  const branch = plainLine(failure.branch, 100) || 'detached';
  const runId = failure.runId === undefined || failure.runId === '' ? null : String(failure.runId);
  return { key: `${CI_FAILURE_PREFIX}${workflow}@${branch}`, ...(runId !== null ? { formerKeys: [`ci-run#${runId}`] } : {}) };
}
