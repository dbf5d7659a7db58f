/**
 * `loop-runtime state pull|push [--remote origin] [--branch loop-runtime-state]`:
 * keep the runtime's state (spend journal, run logs, state files, attempt
 * ledgers, lease history) on a dedicated branch so ephemeral CI runners
 * remember budgets, attempts and last-run times between runs.
 */
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';

/** The state files of the project's configured loops (defaults when the project does not load). */
export async function projectStateFiles(root: string): Promise<import('../../adapters/state-branch/state-branch.js').StateFile[]> {
  const { stateFilesFor } = await import('../../adapters/state-branch/state-branch.js');
  const { loadProject, resolvePlan } = await import('../../project/load-project.js');
  const loaded = await loadProject(root);
  const files: Array<{ state: string; runLog: string; ledger: string }> = [];
  if (loaded.ok) {
    for (const id of loaded.project.configuredLoops) {
      const resolved = await resolvePlan(loaded.project, id);
      if (resolved.ok) files.push(resolved.plan.files);
    }
  }
  if (files.length === 0) files.push({ state: 'STATE.md', runLog: 'loop-run-log.md', ledger: 'loop-ledger.json' });
  return stateFilesFor(files);
}

export async function stateCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const action = args[0];
  if (action !== 'pull' && action !== 'push') {
    throw new LoopRuntimeError('USAGE', `state ${action ?? ''} is not a state action.`.replace('  ', ' '), { fix: 'use `loop-runtime state pull` before ticks and `loop-runtime state push` after them.' });
  }
  const remote = typeof options.remote === 'string' ? options.remote : 'origin';
  const { DEFAULT_STATE_BRANCH, pullState, pushState } = await import('../../adapters/state-branch/state-branch.js');
  const branch = typeof options.branch === 'string' ? options.branch : DEFAULT_STATE_BRANCH;
  const files = await projectStateFiles(io.cwd);
  io.progress(`state ${action}: ${remote}/${branch} (${files.length} file(s))`);
  const result = await (action === 'pull' ? pullState : pushState)({ root: io.cwd, remote, branch, files, env: io.env });
  const changed = result.files.filter((file) => file.action !== 'unchanged' && file.action !== 'absent');
  const text =
    action === 'pull'
      ? result.commit
        ? `Pulled state from ${remote}/${branch} at ${result.commit.slice(0, 12)}: ${changed.length ? changed.map((file) => `${file.path} (${file.action})`).join(', ') : 'nothing changed'}.`
        : `No state branch ${remote}/${branch} yet: starting from the working tree's files. \`loop-runtime state push\` creates it.`
      : result.pushed
        ? `Pushed state to ${remote}/${branch} at ${result.commit?.slice(0, 12)} (attempt ${result.attempts}).`
        : `State on ${remote}/${branch} is already up to date.`;
  return { exitCode: ExitCode.ok, json: { action, ...result }, text };
}
