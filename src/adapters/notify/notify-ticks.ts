/**
 * The one place notifications are sent: the tick session calls this after the ticks are recorded. Reads the
 * `notify:` setting (the webhook URL from the environment variable it names), sends what each tick warrants, and
 * turns every failure into a note: a notification never fails, delays past its timeout, or changes a tick.
 */
import type { TickResult } from '../../core/engine/tick-result.js';
import type { Notifier } from '../../core/ports/notifier.js';
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
}

/** Sends the ticks' notifications; returns how many were delivered. */
export async function notifyTicks(ticks: readonly TickResult[], setting: NotifySetting, options: NotifyTicksOptions): Promise<number> {
  const notifications = ticks.map((tick) => notificationFor(tick, setting.console ?? null)).filter((notification) => notification !== null);
  if (notifications.length === 0) return 0;
  const name = setting.webhook.replace(/^env:/, '');
  const url = options.env[name];
  if (!options.notifier && !url) {
    options.note(`notify: ${notifications.length} notification(s) not sent: the environment variable ${name} (notify.webhook) is not set. To fix: set ${name} to the webhook URL (a CI secret).`, true);
    return 0;
  }
  const notifier = options.notifier ?? webhookNotifier({ url: url!, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
  let sent = 0;
  for (const notification of notifications) {
    const result = await notifier.notify(notification).catch((error: unknown) => ({ ok: false as const, reason: 'unreachable' as const, message: error instanceof Error ? error.message : String(error), retryable: true }));
    if (result.ok) sent += 1;
    else options.note(`notify: the ${notification.kind} notification for ${notification.loop} was not sent: ${result.message}; the tick is unaffected`, true);
  }
  return sent;
}
