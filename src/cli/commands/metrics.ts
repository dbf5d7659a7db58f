/**
 * `loop-runtime metrics [id] [--since 30d] [--json]`: whether a loop earns
 * its tokens — acceptance, reverts, escalations, tokens and cost per tick,
 * per proposed and per merged change, no-ops, time to merge — and whether
 * the evidence supports a promotion.
 */
import { tickState } from '../../core/text/tick-state.js';
import pc from 'picocolors';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import { parseSince } from '../../core/outcomes/index.js';
import type { LoopMetricsReport } from '../../use-cases/outcomes/gather-metrics.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { configErrorOutput, openCliRuntime } from '../open.js';
import { formatCount } from '../../core/text/format-count.js';

const percent = (value: number | null) => (value === null ? '—' : `${Math.round(value * 100)}%`);
const tokens = (value: number | null) => (value === null ? '—' : formatCount(Math.round(value)));
const usd = (value: number | null, complete: boolean) => (value === null ? '—' : `$${value.toFixed(2)}${complete ? '' : '+'}`);
const hours = (ms: number | null) => (ms === null ? '—' : ms < 3_600_000 ? `${Math.round(ms / 60_000)}m` : `${(ms / 3_600_000).toFixed(1)}h`);

/** The human rendering of one loop's metrics. */
export function renderLoopMetrics(loop: LoopMetricsReport): string[] {
  const kinds = Object.entries(loop.ticks.byKind).map(([kind, count]) => `${tickState({ kind })} ${count}`).join(', ') || 'none';
  const changes = loop.changes;
  const promotion = loop.promotion;
  return [
    `${pc.bold(loop.pattern)} at ${loop.level} (autonomy ${loop.autonomy})`,
    `  ticks          ${loop.ticks.total} (${kinds})`,
    `  changes        ${changes.proposed} proposed · ${changes.merged} merged · ${changes.closed} closed · ${changes.reverted} reverted · ${changes.open} open`,
    `  acceptance     ${percent(loop.acceptanceRate)}   revert rate ${percent(loop.revertRate)}   escalation rate ${percent(loop.escalationRate)}`,
    `  no-ops         ${percent(loop.noopRate)} of ticks, ${percent(loop.zeroTokenNoopShare)} of them at zero tokens`,
    `  tokens         ${tokens(loop.tokens.total)} total · ${tokens(loop.tokens.perTick)}/tick · ${tokens(loop.tokens.perProposed)}/proposed · ${tokens(loop.tokens.perMerged)}/merged`,
    `  cost           ${usd(loop.costUsd.total, loop.costUsd.complete)} total · ${usd(loop.costUsd.perTick, loop.costUsd.complete)}/tick · ${usd(loop.costUsd.perProposed, loop.costUsd.complete)}/proposed · ${pc.bold(`${usd(loop.costUsd.perMerged, loop.costUsd.complete)}/merged`)}`,
    `  time to merge  median ${hours(loop.medianTimeToMergeMs)}   checks: ${loop.checks.passing} passing, ${loop.checks.failing} failing, ${loop.checks.pending} pending`,
    `  human          ${loop.human.approved} approved, ${loop.human.rejected} rejected from the inbox`,
    promotion.recommended
      ? pc.green(`  promotion      recommended: ${promotion.from} → ${promotion.to} — run \`loop-runtime promote ${loop.pattern} --yes\``)
      : `  promotion      not recommended${promotion.to ? ` (${promotion.from} → ${promotion.to})` : ''}: ${promotion.blockers.join('; ')}`,
  ];
}

/** Handler for `loop-runtime metrics [id]`. */
export async function metricsCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const sinceText = typeof options.since === 'string' ? options.since : '30d';
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const since = parseSince(sinceText, io.clock.now());
  if (since === null) throw new LoopRuntimeError('USAGE', `--since ${sinceText} is not a duration or a date.`, { fix: 'use e.g. 12h, 30d, 2w or 2026-11-01.' });
  const result = await opened.runtime.metrics(args[0], { since, ...(options.audit === false ? { audit: false } : {}) });
  if (!result.ok) return configErrorOutput(result.issues);
  const text = [`Metrics ${result.value.since.slice(0, 10)} → ${result.value.until.slice(0, 10)}`, ...result.value.loops.flatMap((loop) => ['', ...renderLoopMetrics(loop)])];
  return { exitCode: ExitCode.ok, json: { ...result.value }, text: text.join('\n') };
}
