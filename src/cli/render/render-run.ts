import pc from 'picocolors';
import type { TickResult } from '../../core/engine/tick-result.js';
import type { RunSummary } from '../../use-cases/run.js';
import { formatCount } from '../../core/text/format-count.js';
import { formatUsd, rehearsalSpend } from './render-spend.js';

const number = (value: number) => formatCount(value);

function headline(tick: TickResult): string {
  switch (tick.kind) {
    case 'proposed':
      return pc.green(`act (${tick.verification.verdict.toLowerCase()}) → fix proposed`);
    case 'escalated':
      return pc.yellow('escalated to a human');
    case 'rejected':
      return pc.yellow(`act (rejected, ${tick.attemptsLeft} attempt(s) left)`);
    case 'report':
      return tick.degraded ? pc.yellow(`report-only (${tick.degradedReason ?? 'degraded'})`) : 'report-only';
    case 'noop':
      return pc.dim('no-op');
    case 'paused':
      return pc.red(`paused (${tick.source})`);
    case 'halted':
      return pc.red(`halted (${tick.reason})`);
    case 'failed':
      return pc.red(`failed in ${tick.phase}`);
  }
}

function details(tick: TickResult, dryRun: boolean): string[] {
  const lines: string[] = [];
  // A reason the steps already carry is not printed again.
  const shown = (text: string) => text !== '' && lines.some((line) => line.includes(text));
  for (const step of tick.steps) {
    lines.push(step.note);
    if (step.phase === 'implement' && (tick.kind === 'proposed' || tick.kind === 'escalated' || tick.kind === 'rejected') && tick.changes.length) {
      lines.push(`change touching ${tick.changes.map((file) => `${file.path} (${file.status})`).join(', ')}`);
    }
  }
  if (tick.kind === 'proposed' || ((tick.kind === 'escalated' || tick.kind === 'rejected') && tick.verification)) {
    const verification = tick.verification!;
    const reasons = verification.reasons.join('; ');
    if (!shown(reasons)) lines.push(`verifier verdict: ${verification.verdict} — ${reasons}`);
  }
  if (tick.kind === 'escalated') {
    const where = dryRun ? 'a real run keeps the worktree for `loop-runtime inbox`' : 'see `loop-runtime inbox`';
    lines.push(shown(tick.reason) ? `waiting on a human (${where})` : `waiting on a human: ${tick.reason} (${where})`);
  }
  if ((tick.kind === 'failed' || tick.kind === 'halted') && !shown(tick.message)) lines.push(tick.message);
  return lines;
}

export function renderRun(summary: RunSummary): string {
  const out: string[] = [];
  const mode = summary.dryRun ? ' (dry-run: nothing written)' : '';
  out.push(`Ran ${summary.ticks.length} tick(s) of ${pc.bold(summary.pattern.name)} [${summary.level}] via ${summary.backend} backend${mode}:`);
  summary.ticks.forEach((tick, index) => {
    const cost = tick.costUsd === undefined ? '' : ` (${formatUsd(tick.costUsd)})`;
    out.push(`  tick ${index + 1}: ${headline(tick)} — ${number(tick.tokens)} tokens${cost}`);
    for (const line of details(tick, summary.dryRun)) out.push(`           ${pc.dim('·')} ${line}`);
  });
  if (summary.backendReason && !summary.dryRun) out.push(pc.dim(`backend: ${summary.backend} — ${summary.backendReason}`));
  for (const note of summary.notes ?? []) out.push(pc.dim(`note: ${note}`));
  const { spentToday, dailyTokenCap } = summary.budget;
  // A rehearsal's tokens never count against a real backend's cap: said in the words `status` uses.
  if (summary.rehearsal) out.push(`Budget: ${rehearsalSpend(summary.ticks.reduce((total, tick) => total + tick.tokens, 0))} against the ${number(dailyTokenCap)} tokens/day cap.`);
  else out.push(`Budget: ${number(spentToday)} / ${number(dailyTokenCap)} tokens spent today (UTC).`);
  // The run's dollars and, once, what priced them.
  if (summary.priceSource !== undefined) out.push(`Cost: ${formatUsd(summary.costUsd ?? null)} for this run — ${summary.priceSource}.`);
  return out.join('\n');
}
