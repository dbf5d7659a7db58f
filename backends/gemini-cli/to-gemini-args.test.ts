import { describe, expect, it } from 'vitest';
import { parseGeminiLine, usageFromStats } from './gemini-events.js';
import { toGeminiArgs, toGeminiSettings } from './to-gemini-args.js';

describe('gemini-cli mapping', () => {
  it('allowlists read tools for read-only roles and edit tools plus auto_edit for the implementer', () => {
    const check = toGeminiSettings({ role: 'check', permissions: { write: false, execute: false }, maxTurns: 4 });
    expect(check).toMatchObject({ model: { maxSessionTurns: 4 }, tools: { core: ['read_file', 'read_many_files', 'list_directory', 'glob', 'grep_search'] } });
    expect((check.tools as { exclude: string[] }).exclude).toEqual(expect.arrayContaining(['replace', 'write_file', 'run_shell_command', 'web_fetch']));
    const implement = toGeminiSettings({ role: 'implement', permissions: { write: true, execute: true }, maxTurns: 4 });
    expect((implement.tools as { core: string[] }).core).toEqual(expect.arrayContaining(['replace', 'write_file']));
    expect((implement.tools as { core: string[] }).core).not.toContain('run_shell_command');
    expect(toGeminiArgs({ role: 'implement', permissions: { write: true, execute: true } })).toEqual([
      '-p', 'Do the task above.', '--output-format', 'stream-json', '--approval-mode', 'auto_edit', '--skip-trust', '--model', 'gemini-2.5-flash',
    ]);
  });

  it('reads usage from result stats', () => {
    const result = parseGeminiLine('{"type":"result","status":"success","stats":{"total_tokens":3335,"input_tokens":3300,"output_tokens":35,"cached":300,"input":3000}}');
    expect(result?.type === 'result' && usageFromStats(result.stats)).toEqual({ inputTokens: 3000, outputTokens: 35, cacheReadTokens: 300, cacheWriteTokens: 0 });
    expect(parseGeminiLine('not json')).toBeNull();
  });
});
