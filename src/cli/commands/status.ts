/**
 * `loop-runtime status`: per loop, today's spend against the cap, whether it
 * is paused, and its last runs from loop-run-log.md.
 */
import pc from 'picocolors';
import { ExitCode } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { openCliRuntime } from '../open.js';

export async function statusCommand({ io }: CommandContext): Promise<CommandOutput> {
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const report = await opened.runtime.status();
  const { day, root, loops } = report;
  const text = [
    `Loops in ${root} (UTC day ${day}):`,
    ...(report.store.startsWith('postgres') ? [pc.dim(`  store: ${report.store}`)] : []),
    ...(loops.length === 0 ? ['  none configured — run `loop-runtime list` to see the catalogue'] : []),
    ...loops.flatMap((loop) => [
      `  ${pc.bold(loop.id)} [${loop.level}] ${loop.spentToday.toLocaleString('en-US')} / ${loop.dailyTokenCap.toLocaleString('en-US')} tokens today${loop.paused ? pc.red(` — paused by ${loop.pausedBy}`) : ''}`,
      loop.backend.name ? `    backend ${loop.backend.name} ${pc.dim(`— ${loop.backend.reason}`)}` : `    backend ${pc.yellow('none installed')} — ${loop.backend.reason} To fix: ${loop.backend.fix ?? ''}`,
      ...(loop.lastRuns.length
        ? loop.lastRuns.map((run) => `    · ${run.run_id} ${run.outcome} ~${Number(run.tokens_estimate).toLocaleString('en-US')} tokens`)
        : ['    · no runs recorded in the run log']),
    ]),
  ].join('\n');
  return { exitCode: ExitCode.ok, json: report, text };
}
