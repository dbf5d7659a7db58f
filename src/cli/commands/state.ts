/**
 * `loop-runtime state pull|push [--remote origin] [--branch loop-runtime-state]`:
 * parse → `syncState` (src/use-cases/state-sync.ts) → render.
 */
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';

export async function stateCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const action = args[0];
  if (action !== 'pull' && action !== 'push') {
    throw new LoopRuntimeError('USAGE', `state ${action ?? ''} is not a state action.`.replace('  ', ' '), { fix: 'use `loop-runtime state pull` before ticks and `loop-runtime state push` after them.' });
  }
  const remote = typeof options.remote === 'string' ? options.remote : 'origin';
  const { syncState } = await import('../../use-cases/state-sync.js');
  const result = await syncState({ action, root: io.cwd, remote, branch: typeof options.branch === 'string' ? options.branch : undefined, env: io.env, progress: io.progress });
  const { branch } = result;
  const changed = result.files.filter((file) => file.action !== 'unchanged' && file.action !== 'absent');
  const text =
    action === 'pull'
      ? result.commit
        ? `Pulled state from ${remote}/${branch} at ${result.commit.slice(0, 12)}: ${changed.length ? changed.map((file) => `${file.path} (${file.action})`).join(', ') : 'nothing changed'}.`
        : `No state branch ${remote}/${branch} yet: starting from the working tree's files. \`loop-runtime state push\` creates it.`
      : result.pushed
        ? `Pushed state to ${remote}/${branch} at ${result.commit?.slice(0, 12)} (attempt ${result.attempts}).`
        : `State on ${remote}/${branch} is already up to date.`;
  return { exitCode: ExitCode.ok, json: result, text };
}
