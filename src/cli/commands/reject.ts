/** `loop-runtime reject <id>`: discard an escalated change (worktree and branch). */
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';

/** Handler for `loop-runtime reject <id>`. */
export async function rejectCommand({ args, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  if (!id) throw new LoopRuntimeError('USAGE', 'reject needs the id (or item key) of an escalated change.', { fix: 'run `loop-runtime inbox` to see what waits.' });
  const { loadProject } = await import('../../project/load-project.js');
  const loaded = await loadProject(io.cwd);
  if (!loaded.ok) return { exitCode: ExitCode.configError, json: { ok: false, issues: loaded.issues }, text: loaded.issues.map(formatDiagnostic).join('\n') };
  const { rejectChange } = await import('../../runtime/git-approval.js');
  const result = await rejectChange(loaded.project, id, { clock: { now: () => Date.now() }, env: io.env });
  return { exitCode: ExitCode.ok, json: { ok: true, ...result }, text: `Rejected ${result.id} (${result.pattern}): ${result.branch} and its worktree are discarded.` };
}
