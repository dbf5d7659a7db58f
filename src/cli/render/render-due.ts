import type { DueLoopReport, DueRunSummary } from '../../use-cases/run.js';
import { formatCount } from '../../core/text/format-count.js';
import { formatUsd, priceSources, rehearsalSpend } from './render-spend.js';

/** A ticked loop's spend in the words `run <id>` uses: tokens and dollars, or a rehearsal's tokens, not counted. */
function spendOf(report: DueLoopReport): string {
  const tokens = report.tick?.tokens ?? 0;
  if (report.rehearsal) return rehearsalSpend(tokens);
  return `${formatCount(tokens)} tokens${report.tick?.costUsd === undefined ? '' : ` (${formatUsd(report.tick.costUsd)})`}`;
}

/** One line per configured loop: ticked (with its spend), not due, skipped (lease held) or error; then the dollars once. */
export function renderDue(summary: DueRunSummary): string {
  if (summary.decisions.length === 0) return 'No configured loops. Run `loop-runtime list` to see the catalogue.';
  const width = Math.max(...summary.decisions.map((report) => report.id.length));
  const lines = summary.decisions.map((report) => {
    const head = `${report.id.padEnd(width)}  `;
    switch (report.action) {
      case 'not-due':
        return `${head}not due   ${report.detail}`;
      case 'ticked':
        return `${head}ticked    ${report.tick?.kind ?? '?'} — ${spendOf(report)} (${report.detail})${report.tick && 'summary' in report.tick ? ` — ${report.tick.summary}` : ''}`;
      case 'lease-held':
        return `${head}skipped   ${report.message ?? 'lease held'}`;
      case 'error':
        return `${head}error     ${report.message ?? ''}`;
    }
  });
  const ticked = summary.decisions.filter((report) => report.action === 'ticked');
  const out = [`${ticked.length} of ${summary.decisions.length} loop(s) ticked${summary.dryRun ? ' (dry run)' : ''}:`, ...lines];
  const priced = ticked.filter((report) => report.priceSource !== undefined);
  if (priced.length > 0) {
    // The run's dollars and, once, what priced them — as `run <id>` says it.
    out.push(`Cost: ${formatUsd(summary.costUsd ?? null)} for this run.`);
    out.push(...priceSources(priced.map((report) => ({ loop: report.id, source: report.priceSource! }))));
  }
  return out.join('\n');
}
