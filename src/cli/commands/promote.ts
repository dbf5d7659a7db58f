/**
 * `loop-runtime promote <id> [--yes]`: one level up, in the loop's LOOP.md.
 * Without `--yes` it shows the evidence and changes nothing: loops are never
 * promoted on their own, and not by a command the human did not confirm.
 */
import pc from 'picocolors';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { configErrorOutput, openCliRuntime } from '../open.js';

/** Handler for `loop-runtime promote <id>`. */
export async function promoteCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  if (!id) throw new LoopRuntimeError('USAGE', 'promote needs a loop id.', { fix: 'run `loop-runtime metrics` to see which loops are recommended.' });
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const result = await opened.runtime.promote(id, { yes: Boolean(options.yes) });
  if (!result.ok) return configErrorOutput(result.issues);
  const value = result.value;
  const recommendation = value.recommendation;
  const evidence = recommendation.evidence;
  const facts = [
    `  acceptance  ${evidence.acceptance === null ? '—' : `${Math.round(evidence.acceptance * 100)}%`} of ${evidence.decided} decided (${evidence.proposed} proposed, ${evidence.reverted} reverted) at ${evidence.level}`,
    `  time        ${evidence.daysAtLevel} day(s) at ${evidence.level}`,
    `  loop-audit  ${evidence.audit ? `${evidence.audit.score} (${evidence.audit.level})` : `not available${evidence.auditNote ? `: ${evidence.auditNote}` : ''}`}`,
    recommendation.recommended ? pc.green('  recommended') : pc.yellow(`  not recommended: ${recommendation.blockers.join('; ')}`),
  ];
  if (value.status === 'needs-confirmation') {
    return {
      exitCode: ExitCode.halted,
      json: { ...value },
      text: [`${id}: ${recommendation.from} → ${recommendation.to} was not applied.`, ...facts, `Run \`loop-runtime promote ${id} --yes\` to apply it.`].join('\n'),
    };
  }
  return { exitCode: ExitCode.ok, json: { ...value }, text: [`${id}: promoted ${value.change.from} → ${value.change.to} in ${value.change.file}.`, ...facts].join('\n') };
}
