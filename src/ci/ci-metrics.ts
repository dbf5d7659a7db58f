/**
 * The per-loop metrics lines of the GitHub job summary: whether each loop
 * earns its tokens (acceptance, revert rate, tokens and cost per merged
 * change), from the same `metrics` the CLI prints. Pure: data in, markdown out.
 */

/** The fields of a `metrics` loop report the summary shows (`LoopMetricsReport` satisfies it). */
export interface CiLoopMetrics {
  pattern: string;
  level: string;
  /** `merged`: merged and not reverted (a reverted change counts under `reverted` only). */
  changes: { proposed: number; merged: number; reverted: number };
  acceptanceRate: number | null;
  revertRate: number | null;
  tokens: { perMerged: number | null };
  costUsd: { perMerged: number | null; complete: boolean };
}

/** Metrics for the summary, or why there are none (the runtime could not read the repository's state). */
export type CiMetrics = { since: string; loops: readonly CiLoopMetrics[] } | { unavailable: string };

const percent = (value: number | null) => (value === null ? '—' : `${Math.round(value * 100)}%`);
const tokens = (value: number | null) => (value === null ? '—' : Math.round(value).toLocaleString('en-US'));
const usd = (value: number | null, complete: boolean) => (value === null ? '—' : `$${value.toFixed(2)}${complete ? '' : '+'}`);

/**
 * @example
 * ```ts
 * renderMetricsSection({ since: '2026-10-24T00:00:00.000Z', loops: [ciSweeperMetrics] });
 * // → "#### Loop metrics since 2026-10-24\n\n| loop | level | acceptance | … |\n|---|…\n| ci-sweeper | L2 | 75% (3/4) | 0% | 12,400 | $0.41 |"
 * ```
 */
export function renderMetricsSection(metrics: CiMetrics): string {
  if ('unavailable' in metrics) return `#### Loop metrics\n\nNot available: ${metrics.unavailable.replace(/\s+/g, ' ')}\n`;
  const header = `#### Loop metrics since ${metrics.since.slice(0, 10)}`;
  if (metrics.loops.length === 0) return `${header}\n\nNo configured loop.\n`;
  const rows = metrics.loops.map((loop) => {
    const accepted = loop.changes.proposed > 0 ? ` (${loop.changes.merged}/${loop.changes.proposed})` : '';
    return `| ${loop.pattern} | ${loop.level} | ${percent(loop.acceptanceRate)}${accepted} | ${percent(loop.revertRate)} | ${tokens(loop.tokens.perMerged)} | ${usd(loop.costUsd.perMerged, loop.costUsd.complete)} |`;
  });
  const incomplete = metrics.loops.some((loop) => !loop.costUsd.complete && loop.costUsd.perMerged !== null);
  return [
    header,
    '',
    '| loop | level | acceptance (merged/proposed) | revert rate | tokens per merged change | cost per merged change |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    ...(incomplete ? ['`+`: some ticks spent tokens at an unknown price, so the cost is a lower bound.', ''] : []),
  ].join('\n');
}
