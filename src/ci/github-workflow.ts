/**
 * The GitHub Actions workflow `loop-runtime ci init` writes. Pure: loops in,
 * YAML text out (golden-tested, and executed step by step in
 * test/ci-workflow-run.test.ts).
 *
 * One job per loop, each with
 * - its own cron (the loop's short end, see cron.ts) and an `if:` so only the
 *   schedule that fired runs that job; `workflow_dispatch` runs them all, and
 *   ticks each now instead of asking whether it is due;
 * - the event triggers of its loop (event-triggers.ts: ci-sweeper on a failed `workflow_run`, issue-triage on
 *   `issues`, pr-babysitter on reviews and comments on its pull requests), with the Action's gate and item
 *   (workflow-event-steps.ts): `ci gate` right after loop-runtime is installed, before anything reads the event's
 *   text, then `ci event`, and the tick runs on the event's item;
 * - a `concurrency` group per loop with `cancel-in-progress: false` (a
 *   running tick is never killed; the next one queues); a run cancelled by
 *   hand or by a timeout settles its tick (the step forwards the runner's
 *   SIGINT/SIGTERM to loop-runtime, see `forwardingStopSignals`);
 * - least-privilege `permissions` (the workflow grants nothing by default);
 * - only the secrets its backend needs;
 * - a due check first (`ci due`, run through `npx` from the pinned package alone): on a schedule, the heavy steps
 *   run only when it did not answer `due=false`, so a 5-minute loop's 288 daily runs install nothing when nothing
 *   is due; an unknown answer (the check failed, the state unreadable) runs them;
 * - installs: loop-runtime as the project pins it, the backend's agent CLI or
 *   SDK, bubblewrap when the loop has verification commands (workflow-install.ts);
 * - state pull → `run <id> --due --json` → state push (always) → job summary
 *   and annotations via `loop-runtime ci summary`, whose exit code fails the
 *   job when a loop could not run (see ci-summary.ts).
 */
import { Document, isMap, isScalar, isSeq, Scalar } from 'yaml';
import type { DeliveryMode } from '../core/plan/execution-plan.js';
import { cronForCadence } from '../core/schedule/cron.js';
import { eventPermissionsFor, eventTriggerFor, mergeTriggers } from './event-triggers.js';
import { eventSteps, GATE_CONDITION, jobCondition, tickOnEventItem } from './workflow-event-steps.js';
import { agentCliStep, BACKEND_REQUIREMENTS, dueCheckCommand, loopRuntimeCommand, loopRuntimeInstallSteps, sandboxStep, sdksFor, shellWord, type WorkflowInstall } from './workflow-install.js';

export { loopRuntimeCommand } from './workflow-install.js';

export interface WorkflowLoop {
  id: string;
  cadence: { text: string; minIntervalMs: number; maxIntervalMs: number };
  backend: string;
  delivery: DeliveryMode;
  timeoutMs: number;
  /** Probe commands, to grant the read scopes `gh` needs. */
  probeCommands: readonly string[];
  /** True when the loop runs verification commands, which run only inside bubblewrap. */
  sandbox: boolean;
}

export interface WorkflowOptions {
  loops: readonly WorkflowLoop[];
  /** The state branch (default "loop-runtime-state"); null keeps no state between runs. */
  stateBranch?: string | null;
  /** How loop-runtime and the project's dependencies get onto the runner. */
  install: WorkflowInstall;
  nodeVersion?: string;
  /** Override every loop's cron. */
  cron?: string;
  /** The workflows whose failed runs tick ci-sweeper (`workflow_run`); default `["CI"]`. */
  ciWorkflows?: readonly string[];
}

/** Secrets each built-in backend needs, as environment variable names. */
export const BACKEND_SECRETS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(BACKEND_REQUIREMENTS).map(([name, requirement]) => [name, requirement.secrets]),
);

export const WORKFLOW_PATH = '.github/workflows/loop-runtime.yml';

/** Least-privilege permissions for one loop's job. */
export function permissionsFor(loop: WorkflowLoop, stateBranch: string | null): Record<string, 'read' | 'write'> {
  const permissions: Record<string, 'read' | 'write'> = {};
  const writesContents = stateBranch !== null || loop.delivery === 'push' || loop.delivery === 'pull-request';
  permissions.contents = writesContents ? 'write' : 'read';
  const uses = (pattern: RegExp) => loop.probeCommands.some((command) => pattern.test(command));
  if (loop.delivery === 'pull-request') permissions['pull-requests'] = 'write';
  else if (uses(/\bgh\s+pr\b/)) permissions['pull-requests'] = 'read';
  if (uses(/\bgh\s+run\b/)) permissions.actions = 'read';
  if (uses(/\bgh\s+issue\b/)) permissions.issues = 'read';
  return permissions;
}

/** The environment one loop's job needs: its backend's secrets and a token for `gh`. */
export function environmentFor(loop: WorkflowLoop): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of BACKEND_SECRETS[loop.backend] ?? []) env[name] = `\${{ secrets.${name} }}`;
  if (loop.delivery === 'pull-request' || loop.probeCommands.some((command) => /\bgh\s/.test(command))) env.GH_TOKEN = '${{ github.token }}';
  return env;
}

function jobId(id: string): string {
  const cleaned = id.replace(/[^A-Za-z0-9_-]/g, '-');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `loop-${cleaned}`;
}

/**
 * Renders the workflow.
 *
 * @example
 * ```ts
 * const yaml = githubWorkflow({ loops: [{ id: 'ci-sweeper', cadence, backend: 'claude-code', delivery: 'pull-request', timeoutMs: 1_800_000, probeCommands: [], sandbox: true }],
 *   install: { loopRuntime: { kind: 'project' }, project: { lockfile: true } } });
 * ```
 */
export function githubWorkflow(options: WorkflowOptions): string {
  const stateBranch = options.stateBranch === undefined ? 'loop-runtime-state' : options.stateBranch;
  const command = loopRuntimeCommand(options.install);
  const crons = new Map<string, string[]>();
  for (const loop of options.loops) {
    const cron = options.cron ?? cronForCadence(loop.cadence, loop.id);
    crons.set(cron, [...(crons.get(cron) ?? []), loop.id]);
  }
  const stateFlag = stateBranch && stateBranch !== 'loop-runtime-state' ? ` --branch ${stateBranch}` : '';
  const jobs: Record<string, unknown> = {};
  const ciWorkflows = options.ciWorkflows?.length ? options.ciWorkflows : ['CI'];
  const triggers = options.loops.map((loop) => eventTriggerFor(loop.id, ciWorkflows));
  for (const [index, loop] of options.loops.entries()) {
    const cron = options.cron ?? cronForCadence(loop.cadence, loop.id);
    const trigger = triggers[index] ?? null;
    const env = environmentFor(loop);
    const lockfile = options.install.project?.lockfile ?? false;
    const dueCommand = dueCheckCommand(options.install);
    const steps: Record<string, unknown>[] = [
      { uses: 'actions/checkout@v4' },
      { uses: 'actions/setup-node@v4', with: { 'node-version': options.nodeVersion ?? '20', ...(lockfile ? { cache: 'npm' } : {}) } },
    ];
    if (dueCommand) steps.push(dueStep(dueCommand, loop.id, stateBranch));
    // Only an explicit due=false skips: a skipped or failed due check leaves it empty, and the tick runs. Likewise
    // only the trigger gate's explicit allowed=false skips what follows it (it runs on events only).
    const when = (step: Record<string, unknown>, { always = false, gated = false } = {}): Record<string, unknown> => {
      const { name, if: own, ...rest } = step;
      const parts = [...(always ? ['always()'] : []), ...(typeof own === 'string' ? [own] : []), ...(dueCommand ? [DUE_CONDITION] : []), ...(gated && trigger ? [GATE_CONDITION] : [])];
      if (parts.length === 0) return step;
      return { ...(name !== undefined ? { name } : {}), if: parts.join(' && '), ...rest };
    };
    const gated = { gated: true };
    steps.push(...loopRuntimeInstallSteps(options.install, sdksFor([loop.backend], options.install)).map((step) => when(step)));
    const events = trigger ? eventSteps(command, loop.id) : null;
    // The gate needs loop-runtime and nothing else: right after it is installed, before the agent CLI and the state.
    if (events) steps.push(when(events.gate));
    const cli = agentCliStep(loop.backend);
    if (cli) steps.push(when(cli, gated));
    if (loop.sandbox) steps.push(when(sandboxStep(), gated));
    if (stateBranch) steps.push(when({ name: 'Pull loop state', run: `${command} state pull${stateFlag}` }, gated));
    if (events) steps.push(when(events.item, gated));
    steps.push(when({
      name: `Tick ${loop.id} (if due; now when run by hand)`,
      id: 'tick',
      // Below the job's limit: a tick past its own time is cancelled while the state push and summary still have 5 min.
      'timeout-minutes': tickStepMinutes(loop),
      run: [
        'set +e',
        ...(trigger ? tickOnEventItem() : []),
        'if [ "$GITHUB_EVENT_NAME" = schedule ]; then due=--due; else due=; fi',
        ...forwardingStopSignals(`${command} run ${loop.id} $due${trigger ? ' "${item[@]}"' : ''} --json > "$RUNNER_TEMP/loop-runtime.json"`),
        'echo "exit-code=$code" >> "$GITHUB_OUTPUT"',
      ].join('\n'),
    }, gated));
    if (stateBranch) steps.push(when({ name: 'Push loop state', run: `${command} state push${stateFlag}` }, { always: true, gated: true }));
    steps.push(
      when(
        {
          name: 'Summary and annotations (fails the job when the loop could not run)',
          env: { TICK_EXIT_CODE: '${{ steps.tick.outputs.exit-code }}' },
          run: `${command} ci summary "$RUNNER_TEMP/loop-runtime.json" --exit-code "$TICK_EXIT_CODE"`,
        },
        { always: true },
      ),
    );
    jobs[jobId(loop.id)] = {
      name: `${loop.id} (${loop.cadence.text})`,
      if: jobCondition(cron, trigger),
      'runs-on': 'ubuntu-latest',
      'timeout-minutes': tickStepMinutes(loop) + 5,
      concurrency: { group: `loop-runtime-${loop.id}`, 'cancel-in-progress': false },
      permissions: { ...(trigger ? eventPermissionsFor(loop.id) : {}), ...permissionsFor(loop, stateBranch) },
      ...(Object.keys(env).length ? { env } : {}),
      steps,
    };
  }
  const workflow = {
    name: 'loop-runtime',
    on: { schedule: [...crons.keys()].map((cron) => ({ cron })), workflow_dispatch: {}, ...mergeTriggers(triggers) },
    permissions: {},
    jobs,
  };
  const document = new Document(workflow);
  document.commentBefore = [
    ' Written by `loop-runtime ci init`. Regenerate with `loop-runtime ci init --force` after changing cadences or backends.',
    ' Each loop has its own job, schedule and concurrency group; on a schedule `run --due` decides whether a tick is due',
    ' (short end of the cadence while there is work, backing off toward the long end on no-ops); "Run workflow" ticks now.',
    ...(dueCheckCommand(options.install) ? [' A scheduled run asks `ci due` first, with loop-runtime alone: when nothing is due, every install and the tick are skipped.'] : []),
    ...(triggers.some(Boolean)
      ? [' Events (a failed run of your CI, an issue, a review or comment on a loop\'s pull request) tick their loop on that item,', ' after `ci gate` found the actor has write access (bots, forks and read-only users are skipped).']
      : []),
    ' The summary step fails the job when a loop could not run (backend missing or logged out, no sandbox, circuit open,',
    ' config or internal error); a budget halt, kill-switch pause or held lease is a warning, not a failure.',
    stateBranch ? ` State (budget, attempts, run log, leases' history) persists on the branch "${stateBranch}".` : ' No state branch: budgets and attempts start fresh on every run.',
  ].join('\n');
  const schedule = document.getIn(['on', 'schedule'], true);
  if (isSeq(schedule)) {
    [...crons.values()].forEach((ids, index) => {
      const item = schedule.items[index];
      const cron = isMap(item) ? item.get('cron', true) : null;
      if (isScalar(cron)) {
        cron.type = Scalar.QUOTE_SINGLE;
        cron.comment = ` ${ids.join(', ')}`;
      }
    });
  }
  return document.toString({ lineWidth: 0 });
}

/** The heavy steps' condition: anything but the due check's explicit "nothing is due" runs them. */
export const DUE_CONDITION = "steps.due.outputs.due != 'false'";

/**
 * The scheduled run's first real step: is this loop due? Runs loop-runtime alone through npx (no `npm ci` of the
 * project, no agent CLI, no bubblewrap), pulls the state branch and writes `due=true|false` to `$GITHUB_OUTPUT`.
 * Manual runs skip it (they tick now). A failure to run it at all is a warning and leaves `due` empty: the job ticks.
 */
function dueStep(command: string, loopId: string, stateBranch: string | null): Record<string, unknown> {
  const branch = stateBranch === null ? ' --no-state' : stateBranch !== 'loop-runtime-state' ? ` --state-branch ${shellWord(stateBranch)}` : '';
  return {
    name: 'Is the loop due? (before any install; "Run workflow" always ticks)',
    id: 'due',
    if: "github.event_name == 'schedule'",
    run: `${command} ci due --loop ${shellWord(loopId)}${branch} || echo "::warning title=loop-runtime due check::the due check did not run; installing and ticking anyway."`,
  };
}

/** The tick step's limit: the loop's tick timeout and 5 minutes for its own setup and for settling when stopped. */
function tickStepMinutes(loop: WorkflowLoop): number {
  return Math.ceil(loop.timeoutMs / 60_000) + 5;
}

/**
 * Runs `command` so that a cancelled run settles its tick. On cancel (and at a step's timeout) the runner sends
 * SIGINT, then SIGTERM 7.5 s later, then kills the process tree 2.5 s after that, and it sends them to the step's
 * shell only. The shell forwards each to loop-runtime, which stops its agent, settles what was spent, records the
 * tick and releases the lease within the first 7.5 s (the SIGTERM that follows, a second signal, exits at once),
 * before the `always()` steps push the state. `code` is the tick's exit code.
 */
function forwardingStopSignals(command: string): string[] {
  return [
    '# A cancel sends SIGINT, then SIGTERM, to this shell only: forward them, so the tick settles before the always() steps.',
    `${command} &`,
    'tick=$!',
    "trap 'kill -INT $tick 2>/dev/null' INT",
    "trap 'kill -TERM $tick 2>/dev/null' TERM",
    'wait $tick; code=$?',
    'while kill -0 $tick 2>/dev/null; do wait $tick; code=$?; done',
  ];
}
