import pc from 'picocolors';
import type { TickResult } from '../../engine/tick-result.js';
import type { RunSummary } from '../commands/run.js';

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
  const lines = tick.steps.map((step) => `${step.phase}: ${step.note}`);
  switch (tick.kind) {
    case 'proposed':
      lines.push(`change: ${tick.changes.map((file) => `${file.path} (${file.status})`).join(', ')}`);
      lines.push(`verifier verdict: ${tick.verification.verdict} — ${tick.verification.reasons.join('; ')}`);
      lines.push(`gate (${tick.gate.action}): ${tick.gate.trigger === 'ok' ? 'allowed' : tick.gate.trigger} — ${tick.gate.reason}`);
      break;
    case 'escalated':
      if (tick.changes.length) lines.push(`change kept for review: ${tick.changes.map((file) => file.path).join(', ')}`);
      lines.push(`waiting on human: ${tick.reason}`);
      break;
    case 'rejected':
      lines.push(`rejected: ${tick.reasons.join('; ')}`);
      break;
    case 'halted':
      lines.push(tick.message);
      break;
    case 'failed':
      lines.push(tick.message);
      break;
    default:
      break;
  }
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
  const { spentToday, dailyTokenCap } = summary.budget;
  out.push(`Budget: ${number(spentToday)} / ${number(dailyTokenCap)} tokens spent today (UTC)${summary.dryRun ? ', counting this rehearsal' : ''}.`);
  return out.join('\n');
}
