/**
 * `loop-runtime outcomes sync [id]`: follow every delivered change — pull
 * requests through gh or the REST API, local and pushed branches through git
 * ancestry, reverts on the base — and apply each loop's autonomy policy. No
 * model call.
 */
import pc from 'picocolors';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { configErrorOutput, openCliRuntime } from '../open.js';

/** Handler for `loop-runtime outcomes sync [id]`. */
export async function outcomesCommand({ args, io }: CommandContext): Promise<CommandOutput> {
  if (args[0] !== 'sync') throw new LoopRuntimeError('USAGE', `outcomes ${args[0] ?? ''} is not an outcomes action.`, { fix: 'run `loop-runtime outcomes sync` (optionally with a loop id).' });
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const result = await opened.runtime.outcomesSync(args[1]);
  if (!result.ok) return configErrorOutput(result.issues);
  const lines: string[] = [];
  for (const check of result.value.checks) {
    const sync = check.sync;
    if (!sync) {
      lines.push(`${check.pattern}: ${pc.red('not checked')} — ${check.syncError ?? 'unknown error'}`);
      continue;
    }
    lines.push(`${check.pattern}: ${sync.checked} change(s) checked, ${sync.changed.length} moved, ${sync.unchecked.length} unanswered`);
    for (const change of sync.changed) lines.push(`  ${change.commit.slice(0, 12)} ${change.itemKey}: ${change.from} → ${change.to} (${change.via})${change.url ? ` ${change.url}` : ''}`);
    for (const unanswered of sync.unchecked) lines.push(`  ${unanswered.commit.slice(0, 12)}: ${pc.yellow('unanswered')} — ${unanswered.reason}`);
    if (check.change) lines.push(`  ${pc.yellow(`level ${check.change.from} → ${check.change.to}`)} in ${check.change.file}: ${check.change.reason}`);
    else if (check.decision) lines.push(`  level kept: ${check.decision.kind === 'keep' ? check.decision.detail : ''}`);
  }
  if (lines.length === 0) lines.push('No configured loops.');
  const failed = result.value.checks.some((check) => !check.sync);
  return { exitCode: failed ? ExitCode.tickFailed : ExitCode.ok, json: { ...result.value }, text: lines.join('\n') };
}
