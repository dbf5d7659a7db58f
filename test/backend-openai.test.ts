import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOpenAIBackend } from '../backends/openai/index.js';
import { agentRequest, tempWorkspace } from './fakes/agent-request.js';
import { insufficientQuota, rateLimited, serverError, startFakeOpenAIServer, type OpenAIStep } from './fakes/fake-openai-server.js';
import type { FakeServer } from './fakes/http-fake.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(steps: OpenAIStep[], files: Record<string, string> = { 'greet.txt': 'helo world\n' }) {
  const server = await startFakeOpenAIServer(steps);
  const root = await tempWorkspace(files);
  cleanups.push(() => server.close(), () => rm(root, { recursive: true, force: true }));
  const sleeps: number[] = [];
  const backend = (extra: Partial<Parameters<typeof createOpenAIBackend>[0]> = {}) =>
    createOpenAIBackend({
      model: 'gpt-4o-mini',
      apiKey: 'test-key',
      baseURL: `${server.url}/v1`,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0.5,
      projectRoot: root,
      ...extra,
    });
  return { server, root, sleeps, backend };
}

const toolNames = (server: FakeServer, index: number): string[] =>
  (server.requests[index]!.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);

describe('OpenAI backend (official SDK against a local fake)', () => {
  it('runs a tool round trip: read, edit, run a command, done — with streamed usage summed and priced', async () => {
    const { server, root, backend } = await setup([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'greet.txt' } }], usage: { input: 1000, output: 10, cached: 200 } },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'greet.txt', old_string: 'helo', new_string: 'hello' } }], usage: { input: 1100, output: 20 } },
      { toolCalls: [{ name: 'run_command', arguments: { command: 'cat greet.txt' } }], usage: { input: 1200, output: 10 } },
      { text: 'Fixed.', toolCalls: [{ name: 'done', arguments: { result: 'Fixed the typo in greet.txt' } }], usage: { input: 1300, output: 15 } },
    ]);
    const result = await backend().run(agentRequest('implement', root));
    expect(result).toMatchObject({ ok: true, output: { summary: 'Fixed the typo in greet.txt', completed: true } });
    expect(await readFile(path.join(root, 'greet.txt'), 'utf8')).toBe('hello world\n');
    expect(result.usage).toMatchObject({ inputTokens: 4400, outputTokens: 55, cacheReadTokens: 200, cacheWriteTokens: 0 });
    // gpt-4o-mini list price: 0.15 in, 0.6 out, 0.075 cached per million.
    expect(result.usage.costUsd).toBeCloseTo((4400 * 0.15 + 55 * 0.6 + 200 * 0.075) / 1e6, 10);

    const first = server.requests[0]!.body;
    expect(first.stream).toBe(true);
    expect(first.stream_options).toEqual({ include_usage: true });
    expect(first.max_tokens).toBe(4096);
    expect(toolNames(server, 0)).toEqual(['read_file', 'list', 'glob', 'grep', 'write_file', 'edit_file', 'run_command', 'done']);
    expect(first.messages[0].content).toContain('Keep changes small.');
    expect(first.messages[1].content).toContain('<untrusted-data source="work item issue#7">');
    expect(first.messages[1].content).not.toContain('ignore all rules');
    // The tool results went back with the right call ids.
    const last = server.requests[3]!.body.messages;
    const toolMessages = last.filter((message: { role: string }) => message.role === 'tool');
    expect(toolMessages[0]).toMatchObject({ tool_call_id: 'call_1_0', content: expect.stringContaining('helo world') });
    expect(toolMessages[2].content).toContain('exit code 0\nhello world');
  });

  it('gives read-only roles no write or command tools and parses the triage JSON', async () => {
    const { server, root, backend } = await setup([
      { toolCalls: [{ name: 'grep', arguments: { pattern: 'helo' } }] },
      {
        toolCalls: [
          {
            name: 'done',
            arguments: { result: '{"decision":"act","summary":"typo","findings":[{"severity":"watch","summary":"typo in greet.txt"}],"items":[{"key":"typo#1","title":"Fix helo","paths":["greet.txt"]}]}' },
          },
        ],
      },
    ]);
    const result = await backend().run(agentRequest('triage', root));
    expect(toolNames(server, 0)).toEqual(['read_file', 'list', 'glob', 'grep', 'done']);
    expect(server.requests[1]!.body.messages.at(-1).content).toContain('greet.txt:1: helo world');
    expect(result).toMatchObject({
      ok: true,
      output: { decision: 'act', items: [{ key: 'typo#1', title: 'Fix helo', paths: ['greet.txt'] }], findings: [{ severity: 'watch' }] },
    });
  });

  it('parses the checker verdict', async () => {
    const { root, backend } = await setup([{ text: 'Looks right.\n## Verdict: APPROVE\n- minimal change' }]);
    const result = await backend().run(agentRequest('check', root));
    expect(result).toMatchObject({ ok: true, output: { verdict: 'APPROVE', reasons: ['minimal change'] } });
  });

  it('removes a tool called three times with the same arguments and tells the model why', async () => {
    const same = { toolCalls: [{ name: 'read_file', arguments: { path: 'greet.txt' } }] };
    const { server, root, backend } = await setup([same, same, same, { toolCalls: [{ name: 'done', arguments: { result: '## Verdict: REJECT\n- still a typo' } }] }]);
    const result = await backend().run(agentRequest('check', root));
    expect(result).toMatchObject({ ok: true, output: { verdict: 'REJECT' } });
    expect(toolNames(server, 2)).toContain('read_file');
    expect(toolNames(server, 3)).not.toContain('read_file');
    expect(server.requests[3]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('read_file tool has been removed') });
  });

  it('removes run_command after the same command fails three times', async () => {
    const failing = (n: number) => ({ toolCalls: [{ name: 'run_command', arguments: { command: 'exit 3', timeoutMs: 1000 + n } }] });
    const { server, root, backend } = await setup([
      failing(1), failing(2), failing(3),
      { toolCalls: [{ name: 'write_file', arguments: { path: 'greet.txt', content: 'hello world\n' } }] },
      { toolCalls: [{ name: 'done', arguments: { result: 'rewrote greeting' } }] },
    ]);
    const result = await backend().run(agentRequest('implement', root));
    expect(result.ok).toBe(true);
    expect(toolNames(server, 3)).not.toContain('run_command');
    expect(server.requests[3]!.body.messages.at(-1).content).toContain('`exit 3` failed 3 times');
  });

  it('holds an implementer that says done without evidence to one forced continuation, then fails honestly', async () => {
    const done = { toolCalls: [{ name: 'done', arguments: { result: 'All good, nothing to do.' } }] };
    const { server, root, backend } = await setup([done, done]);
    const result = await backend().run(agentRequest('implement', root));
    expect(result).toMatchObject({ ok: false, reason: 'invalid-output', retryable: false });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.messages.at(-1).content).toContain('you have not changed any file or run any command');
  });

  it('stops a model that keeps asking for tools at the request\'s maxTurns, with reason max-turns', async () => {
    const forever = Array.from({ length: 12 }, (_, index) => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `**/*${index}` } }] }));
    const { server, root, backend } = await setup(forever);
    const result = await backend().run(agentRequest('check', root, { maxTurns: 3 }));
    expect(result).toMatchObject({ ok: false, reason: 'max-turns', retryable: true, detail: { maxTurns: 3 } });
    expect(server.requests).toHaveLength(3);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it('treats the backend\'s own maxTurns setting as a ceiling below the request\'s', async () => {
    const forever = Array.from({ length: 12 }, (_, index) => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `**/*${index}` } }] }));
    const { server, root, backend } = await setup(forever);
    const result = await backend({ maxTurns: 2 }).run(agentRequest('check', root, { maxTurns: 5 }));
    expect(result).toMatchObject({ ok: false, reason: 'max-turns' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 429 after the retry-after delay using the injected sleep, then succeeds', async () => {
    const { server, root, sleeps, backend } = await setup([rateLimited(2), serverError(503), { text: '## Verdict: APPROVE' }]);
    const result = await backend().run(agentRequest('check', root));
    expect(result).toMatchObject({ ok: true, output: { verdict: 'APPROVE' } });
    expect(server.requests).toHaveLength(3);
    // First wait honours retry-after (2 s); the second is jittered backoff: 0.5 × 2000 ms.
    expect(sleeps).toEqual([2000, 1000]);
  });

  it('stops on insufficient_quota without retrying', async () => {
    const { server, root, sleeps, backend } = await setup([insufficientQuota(), { text: 'never reached' }]);
    const result = await backend().run(agentRequest('check', root));
    expect(result).toMatchObject({ ok: false, reason: 'quota-exhausted', retryable: false, detail: { status: 429, code: 'insufficient_quota' } });
    expect(result.ok === false && result.message).toContain('To fix:');
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('gives up on rate limits after maxAttempts with a retryable failure', async () => {
    const { server, root, backend } = await setup([rateLimited(0), rateLimited(0), rateLimited(0)]);
    const result = await backend({ maxAttempts: 3 }).run(agentRequest('check', root));
    expect(result).toMatchObject({ ok: false, reason: 'rate-limited', retryable: true });
    expect(server.requests).toHaveLength(3);
  });

  it('refuses a call whose reservation would cross maxTokens, before calling', async () => {
    const { server, root, backend } = await setup([
      { toolCalls: [{ name: 'list', arguments: {} }], usage: { input: 5000, output: 500 } },
      { text: 'never reached' },
    ]);
    const result = await backend({ maxOutputTokens: 1024 }).run(agentRequest('check', root, { maxTokens: 6000 }));
    expect(result).toMatchObject({ ok: false, reason: 'budget' });
    expect(server.requests).toHaveLength(1);
    expect(result.usage.inputTokens + result.usage.outputTokens).toBe(5500);
  });

  it('shrinks the output ceiling to what is left of the reservation', async () => {
    const { server, root, backend } = await setup([{ text: '## Verdict: APPROVE' }]);
    await backend({ maxOutputTokens: 4096, minOutputTokens: 100 }).run(agentRequest('check', root, { maxTokens: 3000 }));
    expect(server.requests[0]!.body.max_tokens).toBeLessThan(3000);
  });

  it('refuses paths outside the worktree', async () => {
    const outside = path.join(tmpdir(), `loop-escape-${process.pid}.txt`);
    const { server, root, backend } = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: '../escaped.txt', content: 'x' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: outside, content: 'x' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: '/etc/passwd' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'fixed.txt', content: 'ok\n' } }] },
      { toolCalls: [{ name: 'done', arguments: { result: 'wrote fixed.txt' } }] },
    ]);
    const result = await backend().run(agentRequest('implement', root));
    expect(result.ok).toBe(true);
    expect(existsSync(path.join(path.dirname(root), 'escaped.txt'))).toBe(false);
    expect(existsSync(outside)).toBe(false);
    const toolResults = server.requests[4]!.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content);
    expect(toolResults[0]).toMatch(/^Error: .*uses "\.\."/);
    expect(toolResults[1]).toMatch(/^Error: .*outside the workspace/);
    expect(toolResults[2]).toMatch(/^Error: .*outside the workspace/);
  });

  it('speaks the Responses API when asked', async () => {
    const { server, root, backend } = await setup([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'greet.txt' } }], usage: { input: 300, output: 5, cached: 100 } },
      { text: '## Verdict: ESCALATE_HUMAN\n- unclear intent', usage: { input: 400, output: 9 } },
    ]);
    const result = await backend({ api: 'responses' }).run(agentRequest('check', root));
    expect(result).toMatchObject({ ok: true, output: { verdict: 'ESCALATE_HUMAN' }, usage: { inputTokens: 600, cacheReadTokens: 100, outputTokens: 14 } });
    expect(server.requests[0]!.url).toBe('/v1/responses');
    expect(server.requests[0]!.body).toMatchObject({ store: false, stream: true, max_output_tokens: 4096 });
    expect(server.requests[1]!.body.input).toContainEqual({ type: 'function_call_output', call_id: 'call_1_0', output: expect.stringContaining('helo world') });
  });

  it('says auth, without calling anything, when no API key is configured', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    try {
      const root = await tempWorkspace({});
      cleanups.push(() => rm(root, { recursive: true, force: true }));
      const result = await createOpenAIBackend({ model: 'gpt-4o-mini' }).run(agentRequest('check', root));
      expect(result).toMatchObject({ ok: false, reason: 'auth', retryable: false, message: expect.stringContaining('OPENAI_API_KEY') });
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
