/**
 * Which tick results tell a human, and the Slack-compatible payload (`text` plus `blocks`) a webhook receives. Pure.
 * Item text comes from issues and pull requests anyone can write: it is quoted as data (escaped for Slack's mrkdwn,
 * in a quote block, cut to a bound), so a title cannot add links, mentions or formatting to the message.
 */
import type { TickResult } from '../../core/engine/tick-result.js';
import type { Notification } from '../../core/ports/notifier.js';

/** Halts a human should hear about. Not `level-l0` (configuration) nor `awaiting-resume` (already told when it halted). */
const NOTIFIED_HALTS = new Set(['budget-exhausted', 'budget-overrun', 'circuit-open', 'backend-stopped', 'max-runs-per-day']);

/** The notification one tick warrants, or null. `consoleUrl`: the console's base URL, for a link to the loop. */
export function notificationFor(tick: TickResult, consoleUrl: string | null = null): Notification | null {
  const base = {
    loop: tick.patternId,
    tickId: tick.tickId,
    spend: { tokens: tick.tokens, spentToday: tick.budget.spentToday, dailyTokenCap: tick.budget.dailyTokenCap },
    link: consoleUrl ? `${consoleUrl.replace(/\/+$/, '')}/#/loops/${encodeURIComponent(tick.patternId)}` : null,
  };
  switch (tick.kind) {
    case 'escalated':
      return { ...base, kind: 'escalated', item: { key: tick.item.key, title: tick.item.title }, reason: tick.reason, command: `loop-runtime approve ${tick.item.key}` };
    case 'halted':
      if (!NOTIFIED_HALTS.has(tick.reason)) return null;
      return {
        ...base,
        kind: tick.reason === 'circuit-open' ? 'circuit-open' : 'halted',
        item: null,
        reason: `${tick.reason}: ${tick.message}`,
        command: tick.reason === 'budget-exhausted' || tick.reason === 'max-runs-per-day' ? `loop-runtime status ${tick.patternId}` : `loop-runtime resume ${tick.patternId}`,
      };
    case 'failed':
      if (tick.phase !== 'deliver' && !tick.stranded) return null;
      return {
        ...base,
        kind: 'delivery-failed',
        item: tick.stranded ? { key: tick.stranded.item.key, title: tick.stranded.item.title } : null,
        reason: tick.stranded?.reason ?? tick.message,
        command: tick.stranded ? `loop-runtime deliver ${tick.stranded.worktree}` : `loop-runtime inbox`,
      };
    default:
      return null;
  }
}

/** Escapes Slack mrkdwn control characters and bounds the length: the text shows as typed, and links nothing. */
export function quoteData(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return cut.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/[`*_~]/g, (character) => `\u200b${character}`);
}

const HEADLINE: Record<Notification['kind'], string> = {
  escalated: 'escalated a change to a human',
  halted: 'halted',
  'circuit-open': 'stopped: circuit breaker open',
  'delivery-failed': 'could not deliver a verified change',
};

/** Slack incoming-webhook JSON (`text` for notifications and other receivers, `blocks` for the message). */
export function slackPayload(notification: Notification): { text: string; blocks: unknown[] } {
  const headline = `loop-runtime: ${notification.loop} ${HEADLINE[notification.kind]}`;
  const spend = `${notification.spend.tokens} tokens this tick; ${notification.spend.spentToday} of ${notification.spend.dailyTokenCap} today`;
  const lines = [
    `*${quoteData(headline)}*`,
    ...(notification.item ? [`Item \`${quoteData(notification.item.key, 120)}\`:`, `> ${quoteData(notification.item.title)}`] : []),
    `Reason: ${quoteData(notification.reason, 500)}`,
    `Spend: ${spend}`,
    `Next: \`${quoteData(notification.command, 200)}\`${notification.link ? ` · <${notification.link}|console>` : ''}`,
  ];
  return {
    text: `${headline} (${notification.item ? `${notification.item.key}: ` : ''}${notification.reason.slice(0, 200)})`,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } }, { type: 'context', elements: [{ type: 'mrkdwn', text: `tick ${quoteData(notification.tickId, 80)}` }] }],
  };
}
