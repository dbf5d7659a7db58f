import pc from 'picocolors';
import type { TickResult } from '../../core/engine/tick-result.js';
import type { RunSummary } from '../../runtime/run-loops.js';

const number = (value: number) => value.toLocaleString('en-US');

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

function details(tick: TickResult): string[] {
  const lines: string[] = [];
  for (const step of tick.steps) {
    lines.push(step.note);
    if (step.phase === 'implement' && (tick.kind === 'proposed' || tick.kind === 'escalated' || tick.kind === 'rejected') && tick.changes.length) {
      lines.push(`change touching ${tick.changes.map((file) => `${file.path} (${file.status})`).join(', ')}`);
    }
  }
  if (tick.kind === 'proposed' || ((tick.kind === 'escalated' || tick.kind === 'rejected') && tick.verification)) {
    const verification = tick.verification!;
    lines.push(`verifier verdict: ${verification.verdict} — ${verification.reasons.join('; ')}`);
  }
  if (tick.kind === 'escalated') lines.push(`waiting on human: ${tick.reason}`);
  if (tick.kind === 'failed' || tick.kind === 'halted') lines.push(tick.message);
  return lines;
}

export function renderRun(summary: RunSummary): string {
  const out: string[] = [];
  const mode = summary.dryRun ? ' (dry-run: nothing written)' : '';
  out.push(`Ran ${summary.ticks.length} tick(s) of ${pc.bold(summary.pattern.name)} [${summary.level}] via ${summary.backend} backend${mode}:`);
  summary.ticks.forEach((tick, index) => {
    out.push(`  tick ${index + 1}: ${headline(tick)} — ${number(tick.tokens)} tokens`);
    for (const line of details(tick)) out.push(`           ${pc.dim('·')} ${line}`);
  });
  for (const note of summary.notes ?? []) out.push(pc.dim(`note: ${note}`));
  const { spentToday, dailyTokenCap } = summary.budget;
  out.push(`Budget: ${number(spentToday)} / ${number(dailyTokenCap)} tokens spent today (UTC)${summary.dryRun ? ', counting this rehearsal' : ''}.`);
  return out.join('\n');
}
