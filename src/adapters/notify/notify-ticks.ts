/**
 * The one place notifications are sent: the tick session calls this after the ticks are recorded. Reads the
 * `notify:` setting (the webhook URL from the environment variable it names), sends what each tick warrants, and
 * turns every failure into a note: a notification never fails, delays past its timeout, or changes a tick.
 */
import type { TickResult } from '../../core/engine/tick-result.js';
import type { Notifier } from '../../core/ports/notifier.js';
import { haltKey, type HaltMemory } from './halt-memory.js';
import { notificationFor } from './notification.js';
import { webhookNotifier } from './webhook-notifier.js';

export interface NotifySetting {
  /** `env:NAME`: the variable (a CI secret) that holds the webhook URL. */
  webhook: string;
  /** The console's base URL, for a link to the loop. */
  console?: string | undefined;
}

export interface NotifyTicksOptions {
  env: Readonly<Record<string, string | undefined>>;
  note: (line: string, shown: boolean) => void;
  /** Tests and other senders; default: a webhook notifier on the URL the setting names. */
  notifier?: Notifier;
  timeoutMs?: number;
  /** The halts already told (a halt that persists is told once); without it every halted tick is told. */
  memory?: HaltMemory;
}

/** Sends the ticks' notifications; returns how many were delivered. */
export async function notifyTicks(ticks: readonly TickResult[], setting: NotifySetting, options: NotifyTicksOptions): Promise<number> {
  const told = options.memory ? await options.memory.load().catch(() => new Map<string, string>()) : null;
  const remember = async (loop: string, key: string | null, at: number) => {
    if (!options.memory || !told || (told.get(loop) ?? null) === key) return;
    if (key === null) told.delete(loop);
    else told.set(loop, key);
    await options.memory.remember(loop, key, at).catch((error: unknown) => options.note(`notify: could not record the halt told for ${loop} (${error instanceof Error ? error.message : String(error)}); it may be told again`, false));
  };
  const pending: Array<{ notification: NonNullable<ReturnType<typeof notificationFor>>; key: string | null; at: number }> = [];
  for (const tick of ticks) {
    const notification = notificationFor(tick, setting.console ?? null);
    const key = haltKey(tick);
    // A tick that ran (not a halt, not a pause) ends the halt: the same halt later is news again.
    if (tick.kind !== 'halted' && tick.kind !== 'paused') await remember(tick.patternId, null, tick.finishedAt);
    if (!notification) continue;
    if (notification.kind !== 'escalated' && notification.kind !== 'delivery-failed' && key !== null && told?.get(tick.patternId) === key) continue;
    pending.push({ notification, key: notification.kind === 'escalated' || notification.kind === 'delivery-failed' ? null : key, at: tick.finishedAt });
  }
  if (pending.length === 0) return 0;
  const notifications = pending.map((entry) => entry.notification);
  const name = setting.webhook.replace(/^env:/, '');
  const url = options.env[name];
  if (!options.notifier && !url) {
    options.note(`notify: ${notifications.length} notification(s) not sent: the environment variable ${name} (notify.webhook) is not set. To fix: set ${name} to the webhook URL (a CI secret).`, true);
    return 0;
  }
  const notifier = options.notifier ?? webhookNotifier({ url: url!, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
  let sent = 0;
  for (const { notification, key, at } of pending) {
    const result = await notifier.notify(notification).catch((error: unknown) => ({ ok: false as const, reason: 'unreachable' as const, message: error instanceof Error ? error.message : String(error), retryable: true }));
    if (result.ok) {
      sent += 1;
      // Remembered only once told: a send that failed is tried again on the next refused tick.
      if (key !== null) await remember(notification.loop, key, at);
    } else options.note(`notify: the ${notification.kind} notification for ${notification.loop} was not sent: ${result.message}; the tick is unaffected`, true);
  }
  return sent;
}
