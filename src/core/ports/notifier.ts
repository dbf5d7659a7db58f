import type { Failure } from './usage.js';

/** Why a human is told: the tick escalated, halted on a reason worth a look, or could not deliver a verified change. */
export type NotificationKind = 'escalated' | 'halted' | 'circuit-open' | 'delivery-failed';

/** One message to a human about one tick. Text from the item (title, key) is data: the sender quotes it, never formats it. */
export interface Notification {
  kind: NotificationKind;
  loop: string;
  tickId: string;
  /** The item the tick worked on, when there was one. */
  item: { key: string; title: string } | null;
  /** The engine's reason (gate reason, halt reason and message, delivery failure). */
  reason: string;
  spend: { tokens: number; spentToday: number; dailyTokenCap: number };
  /** What a human runs next, e.g. `loop-runtime approve <key>` or `loop-runtime resume <loop>`. */
  command: string;
  /** The console's page for the loop, when a console URL is configured. */
  link: string | null;
}

export type NotifyResult = { ok: true } | Failure<'unreachable' | 'timeout' | 'rejected' | 'not-configured'>;

/**
 * Tells a human. Called once per tick, after the tick is recorded, by the tick session (the one place that sends);
 * a failed or slow send is a result, never an exception, and never changes the tick.
 */
export interface Notifier {
  notify(notification: Notification): Promise<NotifyResult>;
}
