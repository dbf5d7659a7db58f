import { describe, expect, it } from 'vitest';
import { ChatStreamAccumulator, toChatMessages } from './chat-mapper.js';
import { fromResponse, toResponsesInput } from './responses-mapper.js';

describe('ChatStreamAccumulator', () => {
  it('joins tool-call argument deltas by index and keeps the usage-only chunk', () => {
    const accumulator = new ChatStreamAccumulator();
    accumulator.push({ choices: [{ index: 0, delta: { content: 'Let me ' } }] });
    accumulator.push({ choices: [{ index: 0, delta: { content: 'look.', tool_calls: [{ index: 1, id: 'b', function: { name: 'grep', arguments: '{"pat' } }] } }] });
    accumulator.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'a', function: { name: 'list', arguments: '' } }] } }] });
    accumulator.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: 'tern":"x"}' } }] } }] });
    accumulator.push({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    accumulator.push({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } });
    expect(accumulator.result()).toEqual({
      text: 'Let me look.',
      toolCalls: [
        { id: 'a', name: 'list', arguments: {} },
        { id: 'b', name: 'grep', arguments: { pattern: 'x' } },
      ],
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
      finishReason: 'tool_calls',
    });
  });

  it('marks unparseable arguments instead of guessing', () => {
    const accumulator = new ChatStreamAccumulator();
    accumulator.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'a', function: { name: 'grep', arguments: '{"pattern": ' } }] } }] });
    expect(accumulator.result().toolCalls[0]).toMatchObject({ arguments: {}, argumentsError: expect.stringContaining('not a JSON object') });
  });
});

describe('message mapping', () => {
  const messages = [
    { role: 'system' as const, content: 'sys' },
    { role: 'user' as const, content: 'task' },
    { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'list', arguments: { path: '.' } }] },
    { role: 'tool' as const, toolCallId: 'c1', name: 'list', content: 'a.txt' },
  ];

  it('maps to Chat Completions', () => {
    expect(toChatMessages(messages).slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list', arguments: '{"path":"."}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
    ]);
  });

  it('maps to and from the Responses API', () => {
    expect(toResponsesInput(messages)).toEqual({
      instructions: 'sys',
      input: [
        { role: 'user', content: 'task' },
        { type: 'function_call', call_id: 'c1', name: 'list', arguments: '{"path":"."}' },
        { type: 'function_call_output', call_id: 'c1', output: 'a.txt' },
      ],
    });
    expect(
      fromResponse({
        status: 'completed',
        output: [
          { type: 'reasoning' },
          { type: 'message', content: [{ type: 'output_text', text: 'hi' }] },
          { type: 'function_call', call_id: 'c2', name: 'done', arguments: '{"result":"r"}' },
        ],
        usage: { input_tokens: 5, output_tokens: 2 },
      }),
    ).toEqual({ text: 'hi', toolCalls: [{ id: 'c2', name: 'done', arguments: { result: 'r' } }], usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 }, finishReason: 'tool_calls' });
  });
});
