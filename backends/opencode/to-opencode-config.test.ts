import { describe, expect, it } from 'vitest';
import { mapCliResult, type CliRunFacts } from './map-cli-result.js';
import { providerEndpoint, toOpenCodeArgs, toOpenCodeConfig, toOpenCodeEnv, withProviderBaseUrl } from './to-opencode-config.js';

describe('toOpenCodeConfig / toOpenCodeArgs / toOpenCodeEnv', () => {
  it('gives only the implementer edit permission and write tools, and bash only with allowBash', () => {
    const agent = (role: 'check' | 'implement', allowBash = false) =>
      (toOpenCodeConfig({ role, permissions: { write: role === 'implement', execute: true }, systemPrompt: 'S', maxTurns: 3, allowBash }).agent as Record<string, { permission: Record<string, string>; tools: Record<string, boolean>; steps: number }>)[`loop-${role}`]!;
    expect(agent('check')).toMatchObject({ steps: 4, permission: { edit: 'deny', bash: 'deny', external_directory: 'deny' }, tools: { write: false, edit: false, bash: false, task: false } });
    expect(agent('implement')).toMatchObject({ permission: { edit: 'allow', bash: 'deny' }, tools: { write: true, edit: true, bash: false } });
    expect(agent('implement', true)).toMatchObject({ permission: { bash: 'allow' }, tools: { bash: true } });
    expect(toOpenCodeArgs({ role: 'check', model: 'a/b' })).toEqual(['run', '--format', 'json', '--pure', '--agent', 'loop-check', '--title', 'loop-runtime check', '--model', 'a/b']);
  });

  it('scrubs secrets except provider keys and isolates the home', () => {
    const env = toOpenCodeEnv({ base: { PATH: '/bin', GITHUB_TOKEN: 'ghp_secret_value', ANTHROPIC_API_KEY: 'sk-ant-xxxxxxxx', HOME: '/home/me' }, home: '/tmp/h', configPath: '/tmp/h/c.json' });
    expect(env).toMatchObject({ PATH: '/bin', ANTHROPIC_API_KEY: 'sk-ant-xxxxxxxx', HOME: '/tmp/h', XDG_DATA_HOME: '/tmp/h/data', OPENCODE_DISABLE_PROJECT_CONFIG: '1' });
    expect(env['GITHUB_TOKEN']).toBeUndefined();
  });
});

describe('mapCliResult', () => {
  const facts = (overrides: Partial<CliRunFacts>): CliRunFacts => ({
    cli: 'X', role: 'check', text: '## Verdict: APPROVE\n- ok', usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
    reportedCost: null, exitCode: 0, signal: null, turns: 1, maxTurns: 5, maxTokens: 100, stderrTail: '', authFix: 'log in', ...overrides,
  });
  it('classifies errors from status and text, and our own stops first', () => {
    expect(mapCliResult(facts({}))).toMatchObject({ ok: true, output: { verdict: 'APPROVE' } });
    expect(mapCliResult(facts({ exitCode: 1, error: { message: 'Incorrect API key provided', status: 401 } }))).toMatchObject({ reason: 'auth', retryable: false });
    expect(mapCliResult(facts({ exitCode: 1, error: { message: 'You exceeded your current quota', status: 429 } }))).toMatchObject({ reason: 'quota-exhausted' });
    expect(mapCliResult(facts({ exitCode: 1, error: { message: 'Too many requests', status: 429 } }))).toMatchObject({ reason: 'rate-limited', retryable: true });
    expect(mapCliResult(facts({ exitCode: 1, error: { message: "This model's maximum context length is 128000 tokens" } }))).toMatchObject({ reason: 'error', retryable: false });
    expect(mapCliResult(facts({ exitCode: 53, exitReason: 'max-turns' }))).toMatchObject({ reason: 'max-turns' });
    expect(mapCliResult(facts({ stoppedFor: 'budget', exitCode: null, signal: 'SIGKILL' }))).toMatchObject({ reason: 'budget', usage: { inputTokens: 10 } });
    expect(mapCliResult(facts({ role: 'triage', text: 'fine!' }))).toMatchObject({ reason: 'invalid-output' });
  });

  it('meters the configured provider: its baseURL (or the built-in one) is the upstream, the proxy its new baseURL', () => {
    const provider = { fake: { npm: '@ai-sdk/openai-compatible', options: { baseURL: 'http://127.0.0.1:4000/v1', apiKey: 'k' } } };
    expect(providerEndpoint('fake/m', provider)).toEqual({ ok: true, provider: 'fake', url: 'http://127.0.0.1:4000/v1' });
    expect(providerEndpoint('anthropic/claude-sonnet-4-5', undefined)).toEqual({ ok: true, provider: 'anthropic', url: 'https://api.anthropic.com/v1' });
    expect(providerEndpoint('mystery/m', undefined)).toMatchObject({ ok: false, message: expect.stringContaining('To fix: set provider.mystery.options.baseURL') });
    expect(providerEndpoint(undefined, undefined)).toMatchObject({ ok: false, message: expect.stringContaining('To fix:') });
    expect(withProviderBaseUrl('fake', provider, 'http://127.0.0.1:47800/v1')).toEqual({ fake: { npm: '@ai-sdk/openai-compatible', options: { baseURL: 'http://127.0.0.1:47800/v1', apiKey: 'k' } } });
  });
});
