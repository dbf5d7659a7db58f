/**
 * opencode config pointing it at a local OpenAI-compatible fake: a custom
 * provider on opencode's bundled `@ai-sdk/openai-compatible` package (no
 * install at run time) with `options.baseURL` on 127.0.0.1.
 */
export const FAKE_OPENCODE_MODEL = 'fake/fake-model';

export function fakeOpenCodeProvider(serverUrl: string): Record<string, unknown> {
  return {
    fake: {
      npm: '@ai-sdk/openai-compatible',
      name: 'Fake OpenAI-compatible',
      options: { baseURL: `${serverUrl}/v1`, apiKey: 'test-key' },
      models: { 'fake-model': { name: 'Fake model', limit: { context: 200_000, output: 8_000 } } },
    },
  };
}
