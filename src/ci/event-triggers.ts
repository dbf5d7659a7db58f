/**
 * Which GitHub events tick which catalogue loop in the workflow `ci init --action` writes, and the job condition that
 * keeps every other loop's job out of them. Pure. The event's item is read by `ci event` (src/ci/github-event.ts)
 * after the trigger gate; these conditions only decide which job starts (GitHub evaluates them on the event's
 * structured fields, before anything runs).
 */
import { parse } from 'yaml';

/** The `on:` entries a loop adds, and the condition its job runs under for them. */
export interface EventTrigger {
  on: Record<string, unknown>;
  condition: string;
}

/** Branch prefix of loop-runtime's pull requests (the default `loop/<id>/`); `ci event` checks each loop's own. */
export const LOOP_BRANCH_PREFIX = 'loop/';

/**
 * @example
 * ```ts
 * eventTriggerFor('issue-triage', ['CI']); // → { on: { issues: { types: ['opened', 'labeled'] } }, condition: "github.event_name == 'issues'" }
 * eventTriggerFor('daily-triage', ['CI']); // → null
 * ```
 */
export function eventTriggerFor(loopId: string, ciWorkflows: readonly string[]): EventTrigger | null {
  switch (loopId) {
    case 'ci-sweeper':
      // GitHub's workflow_run has no conclusion filter: the job's condition keeps the failures.
      return {
        on: { workflow_run: { workflows: [...ciWorkflows], types: ['completed'] } },
        condition: "(github.event_name == 'workflow_run' && github.event.workflow_run.conclusion == 'failure')",
      };
    case 'issue-triage':
      return { on: { issues: { types: ['opened', 'labeled'] } }, condition: "github.event_name == 'issues'" };
    case 'pr-babysitter':
      return {
        on: { pull_request_review: { types: ['submitted'] }, issue_comment: { types: ['created'] } },
        condition:
          `(github.event_name == 'pull_request_review' && startsWith(github.event.pull_request.head.ref, '${LOOP_BRANCH_PREFIX}'))` +
          " || (github.event_name == 'issue_comment' && github.event.issue.pull_request != null)",
      };
    default:
      return null;
  }
}

/** The `on:` of several loops' triggers merged (each event once; workflow_run's workflows united). */
export function mergeTriggers(triggers: ReadonlyArray<EventTrigger | null>): Record<string, unknown> {
  const on: Record<string, unknown> = {};
  for (const trigger of triggers) if (trigger) Object.assign(on, trigger.on);
  return on;
}

/** Permissions an event-triggered job needs beyond its loop's: reading the run's logs, the issue, the pull request. */
export function eventPermissionsFor(loopId: string): Record<string, 'read'> {
  if (loopId === 'ci-sweeper') return { actions: 'read' };
  if (loopId === 'issue-triage') return { issues: 'read' };
  if (loopId === 'pr-babysitter') return { 'pull-requests': 'read' };
  return {};
}

/** A workflow file's `name:` (what `workflow_run.workflows` matches); null when it has none or does not parse. */
export function workflowNameOf(text: string): string | null {
  try {
    const name = (parse(text) as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name.trim() ? name.trim() : null;
  } catch {
    return null;
  }
}
