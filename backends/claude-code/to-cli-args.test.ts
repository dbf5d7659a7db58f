import { describe, expect, it } from 'vitest';
import { toCliArgs, toCliEnv, toolPolicy } from './to-cli-args.js';

const flag = (args: string[], name: string) => args[args.indexOf(name) + 1];

describe('toolPolicy', () => {
  it('gives read-only roles Read, Glob and Grep only', () => {
    for (const role of ['triage', 'check'] as const) {
      const policy = toolPolicy(role, { write: false, execute: false }, true);
      expect(policy.tools).toEqual(['Read', 'Glob', 'Grep']);
      expect(policy.disallowed).toEqual(expect.arrayContaining(['Edit', 'Write', 'Bash', 'WebFetch']));
      expect(policy.permissionMode).toBe('dontAsk');
    }
  });

  it('gives the implementer Edit and Write under acceptEdits, and Bash only when allowed', () => {
    expect(toolPolicy('implement', { write: true, execute: true }, false)).toMatchObject({
      tools: ['Read', 'Glob', 'Grep', 'Edit', 'Write'],
      permissionMode: 'acceptEdits',
      disallowed: expect.arrayContaining(['Bash']),
    });
    expect(toolPolicy('implement', { write: true, execute: true }, true).tools).toContain('Bash');
    expect(toolPolicy('implement', { write: true, execute: false }, true).tools).not.toContain('Bash');
  });
});

describe('toCliArgs', () => {
  it('builds a headless stream-json invocation', () => {
    const args = toCliArgs({ role: 'check', permissions: { write: false, execute: false }, systemPrompt: 'SYS', maxTurns: 7, model: 'sonnet', mcpConfig: 'mcp.json' });
    expect(args.slice(0, 4)).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
    expect(args).toContain('--include-partial-messages');
    expect(flag(args, '--max-turns')).toBe('7');
    expect(flag(args, '--tools')).toBe('Read,Glob,Grep');
    expect(flag(args, '--append-system-prompt')).toBe('SYS');
    expect(flag(args, '--model')).toBe('sonnet');
    expect(args.slice(args.indexOf('--mcp-config'))).toEqual(['--mcp-config', 'mcp.json', '--strict-mcp-config']);
  });

  it('lets the user choose the permission mode, globally or per role', () => {
    const base = { permissions: { write: true, execute: false }, systemPrompt: '', maxTurns: 1 };
    expect(flag(toCliArgs({ ...base, role: 'implement', permissionMode: 'bypassPermissions' }), '--permission-mode')).toBe('bypassPermissions');
    expect(flag(toCliArgs({ ...base, role: 'implement', permissionMode: { check: 'plan' } }), '--permission-mode')).toBe('acceptEdits');
  });
});

describe('toCliEnv', () => {
  it('isolates HOME and passes the retry count', () => {
    const env = toCliEnv({ base: { PATH: '/bin', HOME: '/root', EMPTY: undefined }, env: { X: '1' }, home: '/tmp/h', maxRetries: 0 });
    expect(env).toEqual({ PATH: '/bin', HOME: '/tmp/h', CLAUDE_CONFIG_DIR: '/tmp/h/.claude', X: '1', CLAUDE_CODE_MAX_RETRIES: '0', DISABLE_AUTOUPDATER: '1' });
  });
});
