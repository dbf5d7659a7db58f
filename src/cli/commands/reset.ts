/** `loop-runtime reset <id> --mock`: remove what mock runs of a loop wrote (spend, attempts, run log, state blocks, outcomes, mock branches); the methodology's files come back byte for byte when only the rehearsal wrote them. */
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { configErrorOutput, openCliRuntime } from '../open.js';

/** Handler for `loop-runtime reset <id> --mock`. */
export async function resetCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  if (!id) throw new LoopRuntimeError('USAGE', 'reset needs a loop id.', { fix: 'run `loop-runtime reset <id> --mock`.' });
  if (!options.mock) {
    throw new LoopRuntimeError('USAGE', 'reset removes only rehearsal data, and needs --mock to say so.', {
      fix: `run \`loop-runtime reset ${id} --mock\` (real spend, attempts and state are never reset; a circuit breaker is cleared by \`loop-runtime resume ${id}\`).`,
    });
  }
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const result = await opened.runtime.resetMock(id);
  if (!result.ok) return configErrorOutput(result.issues);
  const removed = result.value;
  const text = [
    `Removed the mock's records of ${removed.loop}:`,
    ...(removed.restored.length > 0 ? [`  restored byte for byte as before the first mock run: ${removed.restored.join(', ')}`] : []),
    `  ${removed.spendLines} spend record(s), ${removed.attempts} attempt(s), ${removed.runLogLines} run-log line(s), ${removed.outcomes} outcome record(s)`,
    `  state file blocks: ${removed.restored.length > 0 || removed.stateBlocks ? 'removed (the last run was a mock run)' : 'kept (none, or a real run wrote them)'}`,
    `  ${removed.branches.length} mock branch(es)${removed.branches.length > 0 ? `: ${removed.branches.join(', ')}` : ''}; ${removed.worktrees} worktree(s)`,
  ].join('\n');
  return { exitCode: ExitCode.ok, json: { ...removed }, text };
}
