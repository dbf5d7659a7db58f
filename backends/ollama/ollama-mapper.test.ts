import { describe, expect, it } from 'vitest';
import { OllamaStreamAccumulator, toOllamaMessages } from './ollama-mapper.js';
import { normalizeOllamaHost } from './ollama-model.js';

describe('Ollama mapping', () => {
  it('accumulates content, object tool arguments and final counters', () => {
    const accumulator = new OllamaStreamAccumulator('call_1');
    accumulator.push({ message: { role: 'assistant', content: 'Checking ' }, done: false });
    accumulator.push({ message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'read_file', arguments: { path: 'a.ts' } } }] }, done: false });
    expect(accumulator.finished).toBe(false);
    accumulator.push({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 42, eval_count: 7 });
    expect(accumulator.result()).toEqual({
      text: 'Checking ',
      toolCalls: [{ id: 'call_1_0', name: 'read_file', arguments: { path: 'a.ts' } }],
      usage: { inputTokens: 42, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
      finishReason: 'stop',
    });
  });

  it('sends tool results with tool_name and arguments as objects', () => {
    expect(
      toOllamaMessages([
        { role: 'assistant', content: '', toolCalls: [{ id: 'x', name: 'glob', arguments: { pattern: '*' } }] },
        { role: 'tool', toolCallId: 'x', name: 'glob', content: 'a' },
      ]),
    ).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'glob', arguments: { pattern: '*' } } }] },
      { role: 'tool', content: 'a', tool_name: 'glob' },
    ]);
  });

  it('normalizes OLLAMA_HOST forms', () => {
    expect(normalizeOllamaHost('0.0.0.0:11434')).toBe('http://0.0.0.0:11434');
    expect(normalizeOllamaHost('https://ollama.example.invalid/')).toBe('https://ollama.example.invalid');
  });
});
