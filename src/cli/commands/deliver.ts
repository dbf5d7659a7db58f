/**
 * `loop-runtime deliver <id>`: retry the delivery of a verified commit whose
 * push or pull request failed (listed by `inbox` as "verified, delivery
 * failed"). Exactly that commit is delivered again; the agent never runs.
 */
import pc from 'picocolors';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { openCliRuntime } from '../open.js';

/** Handler for `loop-runtime deliver <id>`. */
export async function deliverCommand({ args, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  if (!id) throw new LoopRuntimeError('USAGE', 'deliver needs the id (or item key) of a verified change whose delivery failed.', { fix: 'run `loop-runtime inbox` to see what waits.' });
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const result = await opened.runtime.deliver(id);
  const delivery = result.delivery;
  const failed = 'ok' in delivery && delivery.ok === false;
  const line = 'ok' in delivery ? pc.red(`delivery failed again: ${delivery.message}`) : `delivered: ${delivery.kind}${delivery.url ? ` ${delivery.url}` : ''}`;
  return {
    exitCode: failed ? ExitCode.tickFailed : ExitCode.ok,
    json: { ...result },
    text: [`${result.id} (${result.pattern}, ${result.itemKey}): commit ${result.commit.slice(0, 12)} on ${result.branch}.`, `  ${line}`, ...(failed ? ['It stays in `loop-runtime inbox`; fix the cause and run this again.'] : [])].join('\n'),
  };
}
