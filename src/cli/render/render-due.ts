import type { DueRunSummary } from '../../use-cases/run.js';

/** One line per configured loop: ticked, not due, skipped (lease held) or error. */
export function renderDue(summary: DueRunSummary): string {
  if (summary.decisions.length === 0) return 'No configured loops. Run `loop-runtime list` to see the catalogue.';
  const width = Math.max(...summary.decisions.map((report) => report.id.length));
  const lines = summary.decisions.map((report) => {
    const head = `${report.id.padEnd(width)}  `;
    switch (report.action) {
      case 'not-due':
        return `${head}not due   ${report.detail}`;
      case 'ticked':
        return `${head}ticked    ${report.tick?.kind ?? '?'} (${report.detail})${report.tick && 'summary' in report.tick ? ` — ${report.tick.summary}` : ''}`;
      case 'lease-held':
        return `${head}skipped   ${report.message ?? 'lease held'}`;
      case 'error':
        return `${head}error     ${report.message ?? ''}`;
    }
  });
  const ticked = summary.decisions.filter((report) => report.action === 'ticked').length;
  return [`${ticked} of ${summary.decisions.length} loop(s) ticked${summary.dryRun ? ' (dry run)' : ''}:`, ...lines].join('\n');
}
