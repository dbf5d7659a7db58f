/**
 * The workflow `loop-runtime ci init --action` writes: the same jobs as github-workflow.ts (one per loop, its own
 * cron and concurrency group, least-privilege permissions, only its backend's secrets), each running the
 * loop-runtime Action (action.yml) pinned to a commit instead of installing loop-runtime step by step. Pure.
 */
import { Document } from 'yaml';
import { cronForCadence } from '../core/schedule/cron.js';
import { eventPermissionsFor, eventTriggerFor, mergeTriggers } from './event-triggers.js';
import { environmentFor, permissionsFor, type WorkflowLoop } from './github-workflow.js';
import { jobCondition } from './workflow-event-steps.js';

/** actions/checkout pinned to a commit (a tag can be moved under a workflow that trusts it). */
export const CHECKOUT_PINNED = 'actions/checkout@f67ee5d6224ccd5af1909d53ea1faa5efb91db29';

/** What `ci init --action` writes when no `--action-ref` is given: unmistakably not a ref, so the first run fails naming it. */
export const ACTION_REF_PLACEHOLDER = 'OWNER/loop-runtime@REPLACE-WITH-A-40-HEX-COMMIT-SHA';

/** `owner/repo@sha` or `owner/repo/path@sha`, the SHA a full 40-hex commit. */
export const PINNED_ACTION_REF = /^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+(\/[A-Za-z0-9._/-]+)?@[0-9a-f]{40}$/;

export interface ActionWorkflowOptions {
  loops: readonly WorkflowLoop[];
  /** `owner/repo@<40-hex sha>`; null writes ACTION_REF_PLACEHOLDER. */
  actionRef: string | null;
  /** The state branch (default "loop-runtime-state"); null keeps no state between runs. */
  stateBranch?: string | null;
  cron?: string;
  /** The workflows whose failed runs tick ci-sweeper (`workflow_run`); default `["CI"]`. */
  ciWorkflows?: readonly string[];
}

function jobId(id: string): string {
  const cleaned = id.replace(/[^A-Za-z0-9_-]/g, '-');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `loop-${cleaned}`;
}

/**
 * @example
 * ```ts
 * const yaml = actionWorkflow({ loops, actionRef: 'acme/loop-runtime@0123456789abcdef0123456789abcdef01234567' });
 * ```
 */
export function actionWorkflow(options: ActionWorkflowOptions): string {
  const stateBranch = options.stateBranch === undefined ? 'loop-runtime-state' : options.stateBranch;
  const crons = new Set<string>();
  const jobs: Record<string, unknown> = {};
  const ciWorkflows = options.ciWorkflows?.length ? options.ciWorkflows : ['CI'];
  const triggers = options.loops.map((loop) => eventTriggerFor(loop.id, ciWorkflows));
  for (const [index, loop] of options.loops.entries()) {
    const cron = options.cron ?? cronForCadence(loop.cadence, loop.id);
    crons.add(cron);
    const env = environmentFor(loop);
    const trigger = triggers[index];
    // Each job runs on its own cron, "Run workflow", and its own events only: another loop's event does not start it.
    const condition = jobCondition(cron, trigger ?? null);
    jobs[jobId(loop.id)] = {
      name: `${loop.id} (${loop.cadence.text})`,
      if: condition,
      'runs-on': 'ubuntu-latest',
      'timeout-minutes': Math.ceil(loop.timeoutMs / 60_000) + 10,
      // One tick of a loop at a time. A burst of events queues at most one more run (GitHub replaces a pending run
      // of the group with the newest); that one finds the item's proposal open and does not propose it again.
      concurrency: { group: `loop-runtime-${loop.id}`, 'cancel-in-progress': false },
      permissions: { ...(trigger ? eventPermissionsFor(loop.id) : {}), ...permissionsFor(loop, stateBranch) },
      ...(Object.keys(env).length ? { env } : {}),
      steps: [
        { uses: CHECKOUT_PINNED },
        {
          uses: options.actionRef ?? ACTION_REF_PLACEHOLDER,
          id: 'loop',
          with: {
            loop: loop.id,
            // "Run workflow" ticks now; a schedule ticks only when the loop is due.
            mode: "${{ github.event_name == 'schedule' && 'schedule' || 'event' }}",
            'state-branch': stateBranch ?? '',
          },
        },
      ],
    };
  }
  const on = { schedule: [...crons].map((cron) => ({ cron })), workflow_dispatch: {}, ...mergeTriggers(triggers) };
  const document = new Document({ name: 'loop-runtime', on, permissions: {}, jobs });
  document.commentBefore = [
    ' Written by `loop-runtime ci init --action`: each loop\'s job runs the loop-runtime Action, pinned to a commit.',
    options.actionRef ? '' : ` REPLACE ${ACTION_REF_PLACEHOLDER} with <owner>/loop-runtime@<40-hex commit sha> (or run \`ci init --action --action-ref …\` again).`,
    ' Outputs: steps.loop.outputs.outcome, tokens, cost-usd, pull-request-url, escalated.',
  ].filter(Boolean).join('\n');
  return document.toString({ lineWidth: 0 });
}
