/**
 * `loop-runtime ci init --action [--action-ref owner/repo@sha]`: writes the workflow whose jobs run the loop-runtime
 * Action (action.yml) pinned to a commit (src/ci/action-workflow.ts). Without --action-ref it writes a placeholder the
 * first run fails on, and says so.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
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
  const workflow = actionWorkflow({ loops, actionRef, stateBranch, ...(cron ? { cron } : {}) });
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
