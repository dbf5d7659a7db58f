/**
 * The Notifier port over an incoming webhook (Slack, or anything that takes its JSON): one POST per notification,
 * bounded by a timeout, never retried (the next halt or escalation sends again). Every failure is a result.
 */
import type { Notification, Notifier, NotifyResult } from '../../core/ports/notifier.js';
import { slackPayload } from './notification.js';

export interface WebhookNotifierOptions {
  url: string;
  /** Default 5 s: a slow receiver must not hold the tick's process. */
  timeoutMs?: number;
}

/** Names a URL without its path or query, which may carry the webhook's secret. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}

export function webhookNotifier(options: WebhookNotifierOptions): Notifier {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return {
    async notify(notification: Notification): Promise<NotifyResult> {
      const host = hostOf(options.url);
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(slackPayload(notification)),
          signal: AbortSignal.timeout(timeoutMs),
          redirect: 'error',
        });
      } catch (error) {
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        const inner = error instanceof Error ? (error.cause as { code?: string; message?: string; errors?: Array<{ code?: string }> } | undefined) : undefined;
        const cause = inner?.code ?? inner?.errors?.[0]?.code ?? inner?.message ?? (error instanceof Error ? error.message : String(error));
        return timedOut
          ? { ok: false, reason: 'timeout', message: `the webhook at ${host} did not answer within ${timeoutMs} ms`, retryable: true, detail: { host, timeoutMs } }
          : { ok: false, reason: 'unreachable', message: `the webhook at ${host} could not be reached (${cause})`, retryable: true, detail: { host, cause } };
      }
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) return { ok: false, reason: 'rejected', message: `the webhook at ${host} answered HTTP ${response.status}`, retryable: response.status >= 500, detail: { host, status: response.status } };
      return { ok: true };
    },
  };
}
