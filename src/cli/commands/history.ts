/**
 * `loop-runtime history [<id>] [--since 24h|<ISO>] [--limit n]`: past ticks,
 * newest first, from the project's store — the fleet's run history in
 * Postgres, or the run log — in one shape (`RunRecord`).
 */
import pc from 'picocolors';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { openCliRuntime } from '../open.js';
import { formatUsd, priceSources } from '../render/render-spend.js';

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: a duration back from now (30m, 24h, 7d) or an ISO date/time. */
export function parseSince(value: unknown, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  const duration = /^(\d+)([mhd])$/.exec(text);
  if (duration) return now - Number(duration[1]) * UNITS[duration[2]!]!;
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new LoopRuntimeError('USAGE', `--since ${text} is neither a duration nor a date.`, { fix: 'use 30m, 24h or 7d, or a date such as 2026-11-23 or 2026-11-23T08:00Z.' });
  return at;
}

function parseLimit(value: unknown): number {
  const limit = value === undefined ? 50 : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new LoopRuntimeError('USAGE', `--limit ${String(value)} is not a number of runs.`, { fix: 'pass a whole number from 1 to 1000.' });
  return limit;
}

export async function historyCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const since = parseSince(options.since, io.clock.now());
  const limit = parseLimit(options.limit);
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const records = await opened.runtime.runs({ ...(args[0] ? { loop: args[0] } : {}), ...(since !== undefined ? { since } : {}), limit });
  const text =
    records.length === 0
      ? `No runs${args[0] ? ` of ${args[0]}` : ''}${since !== undefined ? ` since ${new Date(since).toISOString()}` : ''}.`
      : records
          .map((record) =>
            [
              record.startedAt.replace(/\.\d{3}Z$/, 'Z'),
              pc.bold(record.loop),
              record.state,
              `${record.tokens.toLocaleString('en-US')} tokens ${formatUsd(record.costUsd)}`,
              ...(record.verdict ? [record.verdict] : []),
              ...(record.pullRequest ? [record.pullRequest] : record.commit ? [record.commit.slice(0, 10)] : []),
              pc.dim(record.tickId ?? ''),
            ].join('  '),
          )
          .concat(priceSources(records.map((record) => ({ loop: record.loop, source: record.priceSource }))).map((line) => pc.dim(line)))
          .join('\n');
  return { exitCode: ExitCode.ok, json: records, text };
}
