/**
 * `loop-runtime approve <id>`: apply an escalated change. The gate is re-run
 * on the change's current diff; when it still escalates, nothing happens
 * without `--yes` (the human has then seen why and decided).
 */
import pc from 'picocolors';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { openCliRuntime } from '../open.js';

/** Handler for `loop-runtime approve <id>`. */
export async function approveCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  if (!id) throw new LoopRuntimeError('USAGE', 'approve needs the id (or item key) of an escalated change.', { fix: 'run `loop-runtime inbox` to see what waits.' });
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const result = await opened.runtime.approve(id, { yes: Boolean(options.yes) });
  const gateLine = result.gate.allowed ? pc.green(`gate (commit): allowed — ${result.paths.length} path(s) within policy`) : pc.yellow(`gate (commit): escalates (${result.gate.trigger}) — ${result.gate.reason}`);
  if (result.status === 'needs-confirmation') {
    return {
      exitCode: ExitCode.halted,
      json: { ...result },
      text: [
        `${result.id} (${result.pattern}, ${result.branch}) was not applied.`,
        `  ${gateLine}`,
        `  paths: ${result.paths.join(', ')}`,
        `The decision is yours: run \`loop-runtime approve ${result.id} --yes\` to apply it anyway, or \`loop-runtime reject ${result.id}\`.`,
      ].join('\n'),
    };
  }
  const delivery = result.delivery;
  const delivered = 'ok' in delivery && delivery.ok === false ? pc.red(`delivery failed: ${delivery.message}`) : `delivered: ${'kind' in delivery ? delivery.kind : ''}${'url' in delivery && delivery.url ? ` ${delivery.url}` : ''}`;
  const failed = 'ok' in delivery && delivery.ok === false;
  return {
    exitCode: failed ? ExitCode.tickFailed : ExitCode.ok,
    json: { ...result },
    text: [`Approved ${result.id} (${result.pattern}): committed ${result.commit.slice(0, 12)} on ${result.branch}.`, `  ${gateLine}`, `  ${delivered}`].join('\n'),
  };
}
