/**
 * `loop-runtime ci init --action [--action-ref owner/repo@sha]`: writes the workflow whose jobs run the loop-runtime
 * Action (action.yml) pinned to a commit (src/ci/action-workflow.ts). Without --action-ref it writes a placeholder the
 * first run fails on, and says so.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { WorkflowLoop } from '../../ci/github-workflow.js';
import type { CommandOutput } from '../command.js';

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
