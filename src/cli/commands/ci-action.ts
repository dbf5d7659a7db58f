/**
 * `loop-runtime ci init --action [--action-ref owner/repo@sha]`: writes the workflow whose jobs run the loop-runtime
 * Action (action.yml) pinned to a commit (src/ci/action-workflow.ts). Without --action-ref it writes a placeholder the
 * first run fails on, and says so.
 */
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { WorkflowLoop } from '../../ci/github-workflow.js';
import type { CommandContext, CommandOutput } from '../command.js';

export interface CiInitActionInput {
  root: string;
  loops: WorkflowLoop[];
  stateBranch: string | null;
  cron?: string;
  options: Record<string, unknown>;
}

export async function ciInitAction({ root, loops, stateBranch, cron, options }: CiInitActionInput): Promise<CommandOutput> {
  const { actionWorkflow, ACTION_REF_PLACEHOLDER, PINNED_ACTION_REF } = await import('../../ci/action-workflow.js');
  const { WORKFLOW_PATH } = await import('../../ci/github-workflow.js');
  const { BACKEND_REQUIREMENTS } = await import('../../ci/workflow-install.js');
  const ref = options.actionRef;
  if (ref !== undefined && (typeof ref !== 'string' || !PINNED_ACTION_REF.test(ref))) {
    throw new LoopRuntimeError('USAGE', `--action-ref ${JSON.stringify(ref)} is not an Action pinned to a commit; a tag or branch can be moved under the workflow.`, {
      fix: 'pass <owner>/<repo>@<40-hex commit sha>, e.g. --action-ref acme/loop-runtime@$(git rev-parse HEAD) in your loop-runtime checkout.',
    });
  }
  const actionRef = typeof ref === 'string' ? ref : null;
  const ciWorkflows = await ciWorkflowNames(root, WORKFLOW_PATH);
  const workflow = actionWorkflow({ loops, actionRef, stateBranch, ciWorkflows, ...(cron ? { cron } : {}) });
  const json = { path: WORKFLOW_PATH, action: actionRef ?? ACTION_REF_PLACEHOLDER, placeholder: actionRef === null, stateBranch, workflow };
  if (options.dryRun) return { exitCode: ExitCode.ok, json: { ...json, written: false }, text: `# ${WORKFLOW_PATH} (not written: --dry-run)\n${workflow}` };
  const target = join(root, WORKFLOW_PATH);
  const exists = await readFile(target).then(() => true, () => false);
  if (exists && !options.force) {
    throw new LoopRuntimeError('USAGE', `${WORKFLOW_PATH} already exists; it was left as it is.`, { fix: 'pass --force to overwrite it, or --dry-run to see the new one first.' });
  }
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, workflow, 'utf8');
  const secrets = [...new Set(loops.flatMap((loop) => BACKEND_REQUIREMENTS[loop.backend]?.secrets ?? []))];
  const text = [
    `Wrote ${WORKFLOW_PATH}: ${loops.map((loop) => loop.id).join(', ')}, each running ${actionRef ?? 'the loop-runtime Action'}.`,
    actionRef ? null : `The Action is a placeholder (${ACTION_REF_PLACEHOLDER}): replace it with <owner>/loop-runtime@<40-hex commit sha>, or run again with --action-ref.`,
    stateBranch ? `State persists on the branch "${stateBranch}".` : 'No state branch: budgets and attempts start fresh on every run.',
    secrets.length ? `Add these repository secrets: ${secrets.join(', ')}.` : 'No secrets needed for these backends.',
  ].filter((line) => line !== null).join('\n');
  return { exitCode: ExitCode.ok, json: { ...json, written: true }, text };
}

/** The `name:` of the repository's other workflows: the runs whose failures tick ci-sweeper (`workflow_run`). */
export async function ciWorkflowNames(root: string, ownPath: string): Promise<string[]> {
  const directory = join(root, dirname(ownPath));
  const files = await readdir(directory).catch(() => [] as string[]);
  const { workflowNameOf } = await import('../../ci/event-triggers.js');
  const names: string[] = [];
  for (const file of files.sort()) {
    if (!/\.ya?ml$/.test(file) || join(dirname(ownPath), file) === ownPath) continue;
    // A workflow that does not parse names nothing; GitHub reports it in its own UI.
    const name = workflowNameOf(await readFile(join(directory, file), 'utf8').catch(() => ''));
    if (name) names.push(name);
  }
  return names;
}

/**
 * `loop-runtime ci gate [--loop <id>] [--allow-bots a,b]`: the Action's trigger gate for `mode: event`
 * (src/ci/trigger-gate.ts), run before the tick reads the event. Always exits 0: a skip is a result, not a failure.
 * Writes `allowed` and `reason` to `$GITHUB_OUTPUT`; on a skip, `LOOP_RUNTIME_GATE=skipped` to `$GITHUB_ENV` and a
 * `run --json`-shaped result (`action: skipped`) to `$RUNNER_TEMP/loop-runtime.json`, which the summary reports.
 */
export async function ciGate({ options, io }: CommandContext): Promise<CommandOutput> {
  const { checkTrigger } = await import('../../ci/trigger-gate.js');
  const env = io.env;
  let event: Record<string, unknown> = {};
  if (env.GITHUB_EVENT_PATH) event = (JSON.parse(await readFile(env.GITHUB_EVENT_PATH, 'utf8').catch(() => '{}')) as Record<string, unknown> | null) ?? {};
  const allowBots = typeof options.allowBots === 'string' ? options.allowBots.split(',').map((login) => login.trim()).filter(Boolean) : [];
  const verdict = await checkTrigger({ event, actor: env.GITHUB_ACTOR, repository: env.GITHUB_REPOSITORY, token: env.GH_TOKEN ?? env.GITHUB_TOKEN, apiUrl: env.GITHUB_API_URL, allowBots });
  const reason = verdict.allowed ? `${verdict.actor} has ${verdict.permission} access` : `${verdict.reason}: ${verdict.message}`;
  if (env.GITHUB_OUTPUT) await appendFile(env.GITHUB_OUTPUT, `allowed=${verdict.allowed}\nreason=${reason.replace(/[\r\n]+/g, ' ')}\n`, 'utf8');
  if (!verdict.allowed) {
    if (env.GITHUB_ENV) await appendFile(env.GITHUB_ENV, 'LOOP_RUNTIME_GATE=skipped\n', 'utf8');
    if (env.RUNNER_TEMP) {
      const loop = typeof options.loop === 'string' && options.loop ? options.loop : '?';
      const skipped = { decisions: [{ id: loop, action: 'skipped', message: `trigger gate: ${reason}` }], exitCode: ExitCode.ok };
      const { envelope } = await import('../envelope.js');
      await writeFile(join(env.RUNNER_TEMP, 'loop-runtime.json'), `${JSON.stringify(envelope({ command: 'run', exitCode: ExitCode.ok, data: skipped }))}\n`, 'utf8');
    }
  }
  const text = verdict.allowed ? `Trigger allowed: ${reason}.` : `::notice title=loop-runtime trigger gate::tick skipped (${reason.replace(/[\r\n%]+/g, ' ')})`;
  return { exitCode: ExitCode.ok, json: verdict, text };
}

/**
 * `loop-runtime ci event --loop <id>`: the event as the tick's work item (src/ci/github-event.ts), written to
 * `$RUNNER_TEMP/loop-runtime-event.json` for `run <id> --event-item`. Runs after `ci gate`; with the gate's skip in
 * the environment it reads nothing. An event without an item (schedule, workflow_dispatch) leaves no file: the tick
 * runs its probes as a scheduled one does. An event this loop does not act on is a skip, like the gate's.
 */
export async function ciEvent({ options, io }: CommandContext): Promise<CommandOutput> {
  const env = io.env;
  const loop = typeof options.loop === 'string' && options.loop ? options.loop : '?';
  if (env.LOOP_RUNTIME_GATE === 'skipped') return { exitCode: ExitCode.ok, json: { item: null, reason: 'gate-skipped' }, text: 'The trigger gate skipped this event: it was not read.' };
  const { eventWorkItem, ITEM_EVENTS } = await import('../../ci/github-event.js');
  const eventName = env.GITHUB_EVENT_NAME ?? '';
  if (!(ITEM_EVENTS as readonly string[]).includes(eventName) || !env.GITHUB_EVENT_PATH) {
    return { exitCode: ExitCode.ok, json: { item: null, reason: 'no-item-event' }, text: `A ${eventName || 'manual'} event carries no work item: the tick runs its probes.` };
  }
  if (!env.GITHUB_REPOSITORY) throw new LoopRuntimeError('USAGE', 'ci event needs GITHUB_REPOSITORY (owner/repo); it is not set.', { fix: 'run it inside a GitHub Actions step, or set GITHUB_REPOSITORY=owner/repo to try it locally.' });
  const event = JSON.parse(await readFile(env.GITHUB_EVENT_PATH, 'utf8')) as Record<string, unknown>;
  const { redactorFor } = await import('../../adapters/redaction/redaction.js');
  const result = await eventWorkItem({
    eventName,
    event,
    repository: env.GITHUB_REPOSITORY,
    token: env.GH_TOKEN ?? env.GITHUB_TOKEN,
    apiUrl: env.GITHUB_API_URL,
    branchPrefixes: await loopBranchPrefixes(io.cwd),
    redact: redactorFor(env, io.cwd),
  });
  const runnerTemp = env.RUNNER_TEMP;
  if (result.ok) {
    if (runnerTemp) await writeFile(join(runnerTemp, 'loop-runtime-event.json'), `${JSON.stringify({ item: result.item, note: result.note })}\n`, 'utf8');
    if (env.GITHUB_OUTPUT) await appendFile(env.GITHUB_OUTPUT, `item=${result.item.key.replace(/[\r\n]+/g, ' ')}\n`, 'utf8');
    return { exitCode: ExitCode.ok, json: { item: result.item.key, note: result.note }, text: `Work item: ${result.item.key} (${result.note}).` };
  }
  const skipped = result.reason === 'ignored';
  if (env.GITHUB_ENV) await appendFile(env.GITHUB_ENV, 'LOOP_RUNTIME_GATE=skipped\n', 'utf8');
  if (runnerTemp) {
    const decision = { id: loop, action: skipped ? 'skipped' : 'error', message: `event: ${result.message}` };
    await writeFile(join(runnerTemp, 'loop-runtime.json'), `${JSON.stringify({ decisions: [decision], exitCode: skipped ? ExitCode.ok : ExitCode.tickFailed })}\n`, 'utf8');
  }
  const line = result.message.replace(/[\r\n%]+/g, ' ');
  return skipped
    ? { exitCode: ExitCode.ok, json: result, text: `::notice title=loop-runtime event::tick skipped (${line})` }
    : { exitCode: ExitCode.tickFailed, json: result, text: `::error title=loop-runtime event::${line}` };
}

/** The branch prefixes of the configured loops' pull requests (default `loop/<id>/`), plus `loop/`. */
async function loopBranchPrefixes(cwd: string): Promise<string[]> {
  const prefixes = new Set(['loop/']);
  const { loadProject, resolvePlan } = await import('../../project/load-project.js');
  const loaded = await loadProject(cwd);
  if (!loaded.ok) return [...prefixes];
  for (const id of loaded.project.configuredLoops) {
    const resolved = await resolvePlan(loaded.project, id);
    if (resolved.ok) prefixes.add(resolved.plan.delivery.branchPrefix);
  }
  return [...prefixes];
}
