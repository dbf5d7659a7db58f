/** `loop-runtime discard <id>`: drop any kept change — escalated, a verified local proposal, a kept worktree. */
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { openCliRuntime } from '../open.js';

const WAS = { escalated: 'escalated change', proposed: 'local proposal', kept: 'kept worktree' } as const;

/** Handler for `loop-runtime discard <id>`. */
export async function discardCommand({ args, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  if (!id) throw new LoopRuntimeError('USAGE', 'discard needs the id, item key or branch of a kept change.', { fix: 'run `loop-runtime inbox` or `loop-runtime status` to see them.' });
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const result = await opened.runtime.discard(id);
  return {
    exitCode: ExitCode.ok,
    json: result,
    text: `Discarded the ${WAS[result.was]} ${result.id} (${result.pattern}): ${result.branch} and its worktree are removed; the loop may propose the item again.`,
  };
}
