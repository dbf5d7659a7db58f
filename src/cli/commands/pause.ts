/**
 * `loop-runtime pause <id> [--reason <text>]` and `pause --all`: sets the
 * kill switch in the project's store (files: `.loop-runtime/paused/<id>` or
 * `loop-pause-all`; the fleet store: a row every machine reads), so the next
 * phase of any tick stops. `resume` is the way out.
 */
import pc from 'picocolors';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { openCliRuntime } from '../open.js';

/** Handler for `loop-runtime pause [id] [--all] [--reason <text>] [--by <name>]`. */
export async function pauseCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  const all = options.all === true;
  if (Boolean(id) === all) {
    throw new LoopRuntimeError('USAGE', id ? `pause got both a loop id (${id}) and --all.` : 'pause needs a loop id or --all.', {
      fix: 'run `loop-runtime pause <id>` for one loop or `loop-runtime pause --all` for every loop (`loop-runtime status` lists them).',
    });
  }
  if (options.reason !== undefined && (typeof options.reason !== 'string' || options.reason.trim() === '')) {
    throw new LoopRuntimeError('USAGE', '--reason needs a text.', { fix: 'write it as --reason "flaky CI", or leave --reason out.' });
  }
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const sources = await opened.runtime.pause({
    ...(id ? { loop: id } : {}),
    ...(typeof options.reason === 'string' ? { reason: options.reason.trim() } : {}),
    ...(typeof options.by === 'string' ? { by: options.by } : {}),
  });
  const what = id ?? 'every loop';
  const text = [`${what}: paused; no tick starts and a running tick stops at its next phase until \`loop-runtime resume ${id ?? '--all'}\`.`, ...sources.map((source) => pc.dim(`  stopped by ${source.source}`))].join('\n');
  return { exitCode: ExitCode.ok, json: { loop: id ?? null, all, pausedBy: sources }, text };
}
