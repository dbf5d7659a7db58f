/**
 * Running token count while the CLI streams, so the process can be stopped
 * the moment the reservation is reached — not after the call, which is when
 * `--max-budget-usd` checks. Usage is kept per message id and each field
 * takes its largest value, because the same message's usage arrives several
 * times (message_start, message_delta, then once per content block).
 */
import { fromAnthropicUsage } from '../shared/usage.js';
import type { ClaudeStreamEvent } from './stream-events.js';

type Counts = ReturnType<typeof fromAnthropicUsage>;

export class StreamUsageTracker {
  private readonly messages = new Map<string, Counts>();
  private currentMessageId: string | null = null;

  private merge(id: string, raw: unknown): void {
    const next = fromAnthropicUsage(raw);
    const previous = this.messages.get(id);
    this.messages.set(
      id,
      previous
        ? {
            inputTokens: Math.max(previous.inputTokens, next.inputTokens),
            outputTokens: Math.max(previous.outputTokens, next.outputTokens),
            cacheReadTokens: Math.max(previous.cacheReadTokens, next.cacheReadTokens),
            cacheWriteTokens: Math.max(previous.cacheWriteTokens, next.cacheWriteTokens),
          }
        : next,
    );
  }

  observe(event: ClaudeStreamEvent): void {
    if (event.type === 'stream_event') {
      const inner = event.event;
      if (inner.type === 'message_start' && inner.message) {
        this.currentMessageId = inner.message.id;
        this.merge(inner.message.id, inner.message.usage);
      } else if (inner.type === 'message_delta' && this.currentMessageId) {
        this.merge(this.currentMessageId, inner.usage);
      }
    } else if (event.type === 'assistant' && event.message.usage) {
      this.merge(event.message.id, event.message.usage);
    }
  }

  /** Tokens seen so far, every kind counted. */
  total(): number {
    let sum = 0;
    for (const counts of this.messages.values()) sum += counts.inputTokens + counts.outputTokens + counts.cacheReadTokens + counts.cacheWriteTokens;
    return sum;
  }

  counts(): Counts {
    const sum: Counts = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    for (const counts of this.messages.values()) {
      sum.inputTokens += counts.inputTokens;
      sum.outputTokens += counts.outputTokens;
      sum.cacheReadTokens += counts.cacheReadTokens;
      sum.cacheWriteTokens += counts.cacheWriteTokens;
    }
    return sum;
  }
}
