import { describe, expect, it } from 'vitest';
import { createBodyReader, ResponseUsage } from './response-usage.js';

const feed = (text: string) => {
  const usage = new ResponseUsage();
  const reader = createBodyReader(usage, () => {});
  reader.push(new TextEncoder().encode(text));
  reader.end();
  return usage;
};

describe('response usage', () => {
  it('reads exact usage from every wire format an agent CLI speaks', () => {
    const anthropic = feed(
      'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":100,"output_tokens":1,"cache_read_input_tokens":30,"cache_creation_input_tokens":5}}}\n\n' +
        'data: {"type":"content_block_delta","delta":{"type":"text_delta","text":"hello there"}}\n\ndata: {"type":"message_delta","usage":{"output_tokens":20}}\n\n',
    );
    expect(anthropic.counts()).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 5 });
    const responses = feed('data: {"type":"response.output_text.delta","delta":"xxxxxxxx"}\n\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":120,"input_tokens_details":{"cached_tokens":20},"output_tokens":30}}}\n\n');
    expect(responses.counts()).toEqual({ inputTokens: 100, outputTokens: 30, cacheReadTokens: 20, cacheWriteTokens: 0 });
    const chat = feed('data: {"choices":[{"delta":{"content":"abcd"}}],"usage":null}\n\ndata: {"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":10}}}\n\ndata: [DONE]\n\n');
    expect(chat.counts()).toEqual({ inputTokens: 40, outputTokens: 7, cacheReadTokens: 10, cacheWriteTokens: 0 });
    const gemini = feed('data: {"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1200,"candidatesTokenCount":40,"cachedContentTokenCount":200,"thoughtsTokenCount":5}}\r\n\r\n');
    expect(gemini.counts()).toEqual({ inputTokens: 1000, outputTokens: 45, cacheReadTokens: 200, cacheWriteTokens: 0 });
    const json = feed(JSON.stringify({ type: 'message', usage: { input_tokens: 9, output_tokens: 3 } }, null, 2));
    expect(json.counts()).toMatchObject({ inputTokens: 9, outputTokens: 3 });
  });

  it('estimates output only while a stream is open, never the request input, and the exact figure replaces it', () => {
    const usage = new ResponseUsage();
    expect(usage.observe({ type: 'response.output_text.delta', delta: 'x'.repeat(400) })).toBe(true);
    expect(usage.counts()).toEqual({ inputTokens: 0, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 });
    usage.observe({ type: 'response.completed', response: { usage: { input_tokens: 10, output_tokens: 60 } } });
    expect(usage.counts()).toEqual({ inputTokens: 10, outputTokens: 60, cacheReadTokens: 0, cacheWriteTokens: 0 });
    const failed = new ResponseUsage();
    failed.observe({ type: 'response.failed', response: { error: { code: 'insufficient_quota', message: 'no credit' } } });
    expect(failed.counts()).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(failed.error).toEqual({ code: 'insufficient_quota', message: 'no credit' });
  });
});
