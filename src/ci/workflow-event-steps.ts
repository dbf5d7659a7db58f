/**
 * Event-triggered ticks in the classic workflow (`ci init` without `--action`), with the same gate and the same item
 * as the Action (action.yml): `ci gate` before anything reads the event's text, then `ci event` writes the event's
 * item, and the tick runs on it (`run <id> --event-item`). A skip (the gate's, or an event the loop does not act on)
 * is a green job whose summary says why. Pure: step objects out. The job condition is shared by both forms.
 */
import type { EventTrigger } from './event-triggers.js';
import { shellWord } from './workflow-install.js';

/** What follows the gate runs unless the gate said `allowed=false` (a schedule or "Run workflow" leaves it empty). */
export const GATE_CONDITION = "steps.gate.outputs.allowed != 'false'";

/**
 * The events that carry someone's text: everything but a schedule and "Run workflow" (GitHub lets only users with
 * write access dispatch a workflow, and a dispatch carries no item).
 */
export const ON_EVENT = "github.event_name != 'schedule' && github.event_name != 'workflow_dispatch'";

/** Where `ci event` writes the item and `run --event-item` reads it. */
const EVENT_ITEM = '$RUNNER_TEMP/loop-runtime-event.json';

type Step = Record<string, unknown>;

/**
 * A loop's job runs on "Run workflow", on its own cron, and on its own events only: another loop's event (an issue
 * for issue-triage) does not start it.
 *
 * @example
 * ```ts
 * jobCondition('7 * * * *', null); // → "github.event_name == 'workflow_dispatch' || (github.event_name == 'schedule' && github.event.schedule == '7 * * * *')"
 * ```
 */
export function jobCondition(cron: string, trigger: EventTrigger | null): string {
  return [`github.event_name == 'workflow_dispatch'`, `(github.event_name == 'schedule' && github.event.schedule == '${cron}')`, ...(trigger ? [trigger.condition] : [])].join(' || ');
}

/**
 * The gate and the item steps, run with `command` (loop-runtime as the job installed it). The token: the job's
 * `GH_TOKEN` when it sets one, else the workflow's own.
 */
export function eventSteps(command: string, loopId: string): { gate: Step; item: Step } {
  const token = 'GH_TOKEN="${GH_TOKEN:-$ACTION_TOKEN}"';
  return {
    gate: {
      name: "Trigger gate (events only: the actor must have write access; before anything reads the event's text)",
      id: 'gate',
      if: ON_EVENT,
      env: { ACTION_TOKEN: '${{ github.token }}' },
      // Bots are skipped unless allowlisted: add `--allow-bots name[bot],…` here to let one start ticks.
      run: `${token} ${command} ci gate --loop ${shellWord(loopId)}`,
    },
    item: {
      name: "The event as the work item (a failed run with its log tail, an issue, a loop's pull request)",
      id: 'event',
      if: ON_EVENT,
      env: { ACTION_TOKEN: '${{ github.token }}' },
      run: `${token} ${command} ci event --loop ${shellWord(loopId)}`,
    },
  };
}

/**
 * The tick step's first lines for a loop with events: an event `ci event` skipped (a run that did not fail, a
 * human's pull request) ticks nothing, and an event's item goes to `run` as `"${item[@]}"`.
 */
export function tickOnEventItem(): string[] {
  return [
    `if [ "\${LOOP_RUNTIME_GATE:-}" = skipped ]; then echo 'Skipped: this event is not one the loop acts on.'; echo "exit-code=0" >> "$GITHUB_OUTPUT"; exit 0; fi`,
    `item=(); if [ -f "${EVENT_ITEM}" ]; then item=(--event-item "${EVENT_ITEM}"); fi`,
  ];
}
