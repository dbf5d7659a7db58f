import { describe, expect, it } from 'vitest';
import { parseStreamLine } from './stream-events.js';
import { StreamUsageTracker } from './usage-tracker.js';

describe('StreamUsageTracker', () => {
  it('counts partial message events and full assistant events once per message', () => {
    const tracker = new StreamUsageTracker();
    const lines = [
      '{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1","usage":{"input_tokens":100,"output_tokens":1,"cache_read_input_tokens":50,"cache_creation_input_tokens":0}}}}',
      '{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}}',
      '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":100,"output_tokens":1}}}',
      '{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}}',
      '{"type":"stream_event","event":{"type":"message_start","message":{"id":"m2","usage":{"input_tokens":200,"output_tokens":1}}}}',
      'not json',
      '{"type":"something_new","x":1}',
    ];
    for (const line of lines) {
      const event = parseStreamLine(line);
      if (event) tracker.observe(event);
    }
    expect(tracker.counts()).toEqual({ inputTokens: 300, outputTokens: 31, cacheReadTokens: 50, cacheWriteTokens: 0 });
    expect(tracker.total()).toBe(381);
  });
});
