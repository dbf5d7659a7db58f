/**
 * `loop-runtime resume <id>`: let a halted loop run again. A halt that needs
 * a human (the backend stopped, a budget overrun) stops every later tick of
 * the loop until this clears it; the run log records who resumed it and when.
 */
import pc from 'picocolors';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { configErrorOutput, openCliRuntime } from '../open.js';

/** Handler for `loop-runtime resume <id> [--by <name>]`. */
export async function resumeCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  if (options.all === true) {
    if (id) throw new LoopRuntimeError('USAGE', `resume got both a loop id (${id}) and --all.`, { fix: 'run `loop-runtime resume <id>` for one loop, or `loop-runtime resume --all` to lift a pause of every loop.' });
    const opened = await openCliRuntime(io);
    if (!opened.ok) return opened.output;
    const still = await opened.runtime.resume(typeof options.by === 'string' ? { by: options.by } : {});
    const lines = ['every loop: the pause of every loop is lifted.', ...still.map((source) => pc.yellow(`still stopped by ${source.source}${source.clearable ? '' : ' (only a human can clear it there)'}.`))];
    return { exitCode: ExitCode.ok, json: { all: true, stillPausedBy: still }, text: lines.join('\n') };
  }
  if (!id) throw new LoopRuntimeError('USAGE', 'resume needs a loop id (or --all).', { fix: 'run `loop-runtime status` to see which loops are halted.' });
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const result = await opened.runtime.resumeLoop(id, typeof options.by === 'string' ? { by: options.by } : {});
  if (!result.ok) return configErrorOutput(result.issues);
  const value = result.value;
  // One sentence per thing cleared; a loop with nothing to clear gets one line that says so.
  const lines = [
    ...(value.cleared ? [`${id}: resumed by ${value.by}; the halt of ${value.cleared.tickId} (${value.cleared.reason}: ${value.cleared.message}) is cleared.`] : []),
    ...(value.circuitCleared ? [`${id}: its circuit breaker is closed again by ${value.by} (it was open: ${value.circuitCleared}); the failed attempts stay in the attempt ledger as history.`] : []),
    ...(value.unpaused ? [`${id}: its pause is lifted.`] : []),
    ...(value.cleared || value.circuitCleared || value.unpaused ? [] : [`${id}: nothing to clear — it was not halted, paused or stopped by its circuit breaker.`]),
    ...value.stillPausedBy.map((source) => pc.yellow(`${id}: still stopped by ${source.source}${source.clearable ? '' : ' (only a human can clear it there)'}.`)),
  ];
  return { exitCode: ExitCode.ok, json: { ...value }, text: lines.join('\n') };
}
