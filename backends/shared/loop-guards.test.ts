import { describe, expect, it } from 'vitest';
import { StallDetector, compactMessages, planNextCall, stableStringify } from './loop-guards.js';
import type { LoopMessage } from './model.js';

describe('planNextCall', () => {
  it('fits input plus output in what is left, shrinking the output ceiling', () => {
    expect(planNextCall({ maxTokens: 10_000, spent: 0, estimatedInput: 1000, maxOutputTokens: 4096, minOutputTokens: 512 })).toEqual({ ok: true, maxOutputTokens: 4096 });
    expect(planNextCall({ maxTokens: 10_000, spent: 7000, estimatedInput: 1000, maxOutputTokens: 4096, minOutputTokens: 512 })).toEqual({ ok: true, maxOutputTokens: 2000 });
    expect(planNextCall({ maxTokens: 10_000, spent: 9000, estimatedInput: 800, maxOutputTokens: 4096, minOutputTokens: 512 }).ok).toBe(false);
  });
});

describe('StallDetector', () => {
  it('flags the third identical call regardless of key order', () => {
    const detector = new StallDetector();
    const call = (args: Record<string, unknown>) => ({ id: 'c', name: 'grep', arguments: args });
    expect(detector.record(call({ pattern: 'a', path: 'src' }), { ok: true })).toBeNull();
    expect(detector.record(call({ path: 'src', pattern: 'a' }), { ok: true })).toBeNull();
    expect(detector.record(call({ pattern: 'b' }), { ok: true })).toBeNull();
    expect(detector.record(call({ pattern: 'a', path: 'src' }), { ok: true })).toMatchObject({ tool: 'grep' });
  });

  it('flags the same failing command three times even with different arguments', () => {
    const detector = new StallDetector();
    const run = (timeoutMs: number) => ({ id: 'c', name: 'run_command', arguments: { command: 'npm test', timeoutMs } });
    expect(detector.record(run(1), { ok: false, executed: 'npm test' })).toBeNull();
    expect(detector.record(run(2), { ok: false, executed: 'npm test' })).toBeNull();
    expect(detector.record(run(3), { ok: false, executed: 'npm test' })).toMatchObject({ tool: 'run_command', reason: expect.stringContaining('failed 3 times') });
  });

  it('sorts keys in stableStringify', () => {
    expect(stableStringify({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
  });
});

describe('compactMessages', () => {
  it('keeps the system prompt, the task, a memory note and recent turns, without orphan tool results', () => {
    const messages: LoopMessage[] = [{ role: 'system', content: 'sys' }, { role: 'user', content: 'task' }];
    for (let index = 0; index < 10; index++) {
      messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `c${index}`, name: 'read_file', arguments: {} }] });
      messages.push({ role: 'tool', toolCallId: `c${index}`, name: 'read_file', content: `result ${index}` });
    }
    const compacted = compactMessages(messages, { modifiedFiles: ['src/a.ts'], failures: ['run_command: exit 1'] }, 5);
    expect(compacted.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(compacted[2]).toMatchObject({ role: 'user', content: expect.stringContaining('src/a.ts') });
    expect(compacted[2]!.content).toContain('run_command: exit 1');
    expect(compacted[3]!.role).toBe('assistant');
    expect(compacted.at(-1)).toMatchObject({ content: 'result 9' });
    expect(compacted.length).toBeLessThan(messages.length);
  });
});
