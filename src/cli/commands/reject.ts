/** `loop-runtime reject <id>`: discard an escalated change (worktree and branch). */
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { openCliRuntime } from '../open.js';

/** Handler for `loop-runtime reject <id>`. */
export async function rejectCommand({ args, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  if (!id) throw new LoopRuntimeError('USAGE', 'reject needs the id (or item key) of an escalated change.', { fix: 'run `loop-runtime inbox` to see what waits.' });
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const result = await opened.runtime.reject(id);
  return { exitCode: ExitCode.ok, json: { ...result }, text: `Rejected ${result.id} (${result.pattern}): ${result.branch} and its worktree are discarded.` };
}
