/**
 * `loop-runtime status`: per loop, today's spend against the cap, whether it
 * is paused, and its last runs from loop-run-log.md.
 */
import pc from 'picocolors';
import { ExitCode } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
// Not the runtime (open.ts): status reads, and its own root opens only what it reads.
import { readStatus } from '../../composition/status-root.js';
import { configErrorOutput } from '../config-error-output.js';
import { formatCount } from '../../core/text/format-count.js';
import { tickState } from '../../core/text/tick-state.js';
import { formatUsd, priceSources, rehearsalSpend } from '../render/render-spend.js';

export async function statusCommand({ io }: CommandContext): Promise<CommandOutput> {
  const read = await readStatus({ cwd: io.cwd, env: io.env, clock: io.clock });
  if (!read.ok) return configErrorOutput(read.issues);
  const report = read.value;
  const { day, root, loops } = report;
  const text = [
    `Loops in ${root} (UTC day ${day}):`,
    ...(report.store.startsWith('postgres') ? [pc.dim(`  store: ${report.store}`)] : []),
    ...(loops.length === 0 ? ['  none configured — run `loop-runtime list` to see the catalogue'] : []),
    ...loops.flatMap((loop) => [
      `  ${pc.bold(loop.id)} [${loop.level}] ${formatCount(loop.spentToday)} / ${formatCount(loop.dailyTokenCap)} tokens today (${formatUsd(loop.costUsd)})${loop.rehearsalSpentToday ? pc.dim(` (+ ${rehearsalSpend(loop.rehearsalSpentToday)}; \`reset ${loop.id} --mock\` removes them)`) : ''}${loop.halted ? pc.red(' — HALTED') : loop.paused ? pc.red(` — paused by ${loop.pausedBy}`) : loop.circuit ? pc.red(' — CIRCUIT OPEN') : ''}`,
      ...(loop.halted
        ? [pc.red(`    halted by tick ${loop.halted.tickId} (${loop.halted.reason}): ${loop.halted.message} — check, then run \`loop-runtime resume ${loop.id}\``)]
        : []),
      ...(loop.circuit
        ? [
            pc.red(`    circuit open: ${loop.circuit.message} Every tick halts (circuit-open) until \`${loop.circuit.fix}\` closes it.`),
            ...loop.circuit.failures.slice(0, 5).map((failure) => pc.red(`      ✗ ${new Date(failure.at).toISOString()} ${failure.itemKey} (tick ${failure.tickId}): ${failure.error}`)),
          ]
        : []),
      ...(loop.halted || !loop.paused ? [] : loop.pauses.slice(1).map((source) => pc.yellow(`    also paused by ${source.source}`))),
      loop.backend.name ? `    backend ${loop.backend.name} ${pc.dim(`— ${loop.backend.reason}`)}` : `    backend ${pc.yellow('none installed')} — ${loop.backend.reason} To fix: ${loop.backend.fix ?? ''}`,
      ...(loop.lastRuns.length
        ? loop.lastRuns.map((run) => `    · ${run.run_id} ${tickState(run) === 'delivery-failed' ? 'verified, delivery failed' : tickState(run)} ~${formatCount(Number(run.tokens_estimate))} tokens${runMarker(run)}`)
        : ['    · no runs recorded in the run log']),
      ...loop.deliveryFailed.map((item) => `    ${pc.yellow('!')} ${item.itemKey} on ${item.branch}: ${item.reason} — retry: loop-runtime deliver ${item.id}`),
      ...loop.recoveries.flatMap((record) => [
        ...(record.removedTemporaryFiles.length ? [pc.yellow(`    recovered ${record.at}: moved ${record.removedTemporaryFiles.join(', ')} to .loop-runtime/recovered/ (left by an interrupted write)`)] : []),
        ...record.recoveredTicks.map((tick) => pc.yellow(`    recovered ${record.at}: commit ${tick.commit.slice(0, 12)} on ${tick.branch} (tick ${tick.tickId} was killed before recording it)`)),
      ]),
    ]),
    ...priceSources(loops.map((loop) => ({ loop: loop.id, source: loop.priceSource }))).map((line) => pc.dim(`  ${line}`)),
  ].join('\n');
  // Each last run carries its state beside the run log's outcome, so a script reads the word the text shows.
  const json = { ...report, loops: loops.map((loop) => ({ ...loop, lastRuns: loop.lastRuns.map((run) => ({ ...run, state: tickState(run) })) })) };
  return { exitCode: ExitCode.ok, json, text };
}

/** Marks run-log lines crash recovery wrote (halts and resumes are their state already). */
function runMarker(run: Record<string, unknown>): string {
  return run['recovered'] === true ? ` (recovered: ${String(run['commit'] ?? '').slice(0, 12)} on ${String(run['branch'] ?? '')})` : '';
}
