import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOllamaBackend, type OllamaBackendSettings } from '../backends/ollama/index.js';
import { agentRequest, tempWorkspace } from './fakes/agent-request.js';
import { startFakeOllamaServer, type OllamaStep } from './fakes/fake-ollama-server.js';
import type { FakeServer } from './fakes/http-fake.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(steps: OllamaStep[]) {
  const server = await startFakeOllamaServer(steps);
  const root = await tempWorkspace({ 'greet.txt': 'helo world\n', 'src/a.ts': 'export const a = 1;\n' });
  cleanups.push(() => server.close(), () => rm(root, { recursive: true, force: true }));
  const sleeps: number[] = [];
  const backend = (extra: Partial<OllamaBackendSettings> = {}) =>
    createOllamaBackend({ host: server.url.replace('http://', ''), model: 'qwen2.5-coder:7b', sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, projectRoot: root, ...extra });
  return { server, root, sleeps, backend };
}

const toolNames = (server: FakeServer, index: number): string[] =>
  (server.requests[index]!.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);

describe('Ollama backend (native /api/chat against a local fake)', () => {
  it('runs a tool round trip with object arguments and sums eval counts', async () => {
    const { server, root, backend } = await setup([
      { toolCalls: [{ name: 'glob', arguments: { pattern: '**/*.txt' } }], usage: { input: 500, output: 12 } },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'greet.txt', content: 'hello world\n' } }], usage: { input: 600, output: 30 } },
      { text: 'Done fixing.', toolCalls: [{ name: 'done', arguments: { result: 'rewrote greet.txt' } }], usage: { input: 700, output: 8 } },
    ]);
    const result = await backend().run(agentRequest('implement', root));
    expect(result).toMatchObject({ ok: true, output: { summary: 'rewrote greet.txt' }, usage: { inputTokens: 1800, outputTokens: 50, costUsd: 0 } });
    expect(await readFile(path.join(root, 'greet.txt'), 'utf8')).toBe('hello world\n');
    const first = server.requests[0]!.body;
    expect(first).toMatchObject({ stream: true, options: { num_ctx: 32768, num_predict: 4096 } });
    const second = server.requests[1]!.body.messages;
    expect(second.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'glob', arguments: { pattern: '**/*.txt' } } }] });
    expect(second.at(-1)).toMatchObject({ role: 'tool', tool_name: 'glob', content: 'greet.txt' });
  });

  it('removes a repeated tool and tells the model', async () => {
    const same = { toolCalls: [{ name: 'list', arguments: { path: 'src' } }] };
    const { server, root, backend } = await setup([same, same, same, { text: '## Verdict: APPROVE\n- fine' }]);
    const result = await backend().run(agentRequest('check', root));
    expect(result).toMatchObject({ ok: true, output: { verdict: 'APPROVE' } });
    expect(toolNames(server, 3)).not.toContain('list');
    expect(server.requests[3]!.body.messages.at(-1).content).toContain('list tool has been removed');
  });

  it('applies the evidence gate to the implementer', async () => {
    const { server, root, backend } = await setup([
      { text: 'Nothing needed.' },
      { toolCalls: [{ name: 'run_command', arguments: { command: 'grep -c helo greet.txt' } }] },
      { toolCalls: [{ name: 'done', arguments: { result: 'confirmed the typo exists; no safe fix' } }] },
    ]);
    const result = await backend().run(agentRequest('implement', root));
    expect(result).toMatchObject({ ok: true, output: { summary: 'confirmed the typo exists; no safe fix' } });
    expect(server.requests[1]!.body.messages.at(-1).content).toContain('you have not changed any file or run any command');
    expect(server.requests[2]!.body.messages.at(-1).content).toBe('exit code 0\n1');
  });

  it('stops a model that keeps asking for tools at the request\'s maxTurns, with reason max-turns', async () => {
    const forever: OllamaStep[] = Array.from({ length: 12 }, (_, index) => ({ toolCalls: [{ name: 'grep', arguments: { pattern: `needle${index}` } }] }));
    const { server, root, backend } = await setup(forever);
    const result = await backend().run(agentRequest('triage', root, { maxTurns: 2 }));
    expect(result).toMatchObject({ ok: false, reason: 'max-turns', detail: { maxTurns: 2 } });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 503 and a broken stream, then succeeds', async () => {
    const { server, root, sleeps, backend } = await setup([
      { error: { status: 503, message: 'server busy' } },
      { text: 'partial', streamError: 'model runner crashed' },
      { text: '## Verdict: REJECT\n- wrong file' },
    ]);
    const result = await backend().run(agentRequest('check', root));
    expect(result).toMatchObject({ ok: true, output: { verdict: 'REJECT', reasons: ['wrong file'] } });
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toEqual([500, 1000]);
  });

  it('does not retry a missing model and says how to fix it', async () => {
    const { server, root, sleeps, backend } = await setup([{ error: { status: 404, message: 'model "qwen2.5-coder:7b" not found, try pulling it first' } }]);
    const result = await backend().run(agentRequest('check', root));
    expect(result).toMatchObject({ ok: false, reason: 'error', retryable: false });
    expect(result.ok === false && result.message).toContain('ollama pull qwen2.5-coder:7b');
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('refuses a call that would cross the reservation', async () => {
    const { server, root, backend } = await setup([{ toolCalls: [{ name: 'list', arguments: {} }], usage: { input: 7000, output: 900 } }, { text: 'never' }]);
    const result = await backend({ maxOutputTokens: 2048 }).run(agentRequest('triage', root, { maxTokens: 9000 }));
    expect(result).toMatchObject({ ok: false, reason: 'budget' });
    expect(server.requests).toHaveLength(1);
  });

  it('compacts the conversation near the context window, keeping the task', async () => {
    const big = 'x'.repeat(6000);
    const steps: OllamaStep[] = [];
    for (let index = 0; index < 6; index++) steps.push({ toolCalls: [{ name: 'grep', arguments: { pattern: `needle${index}|${big.slice(0, 10)}` } }] });
    steps.push({ text: '{"decision":"noop","summary":"nothing to do"}' });
    const { server, root, backend } = await setup(steps);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(root, 'big.txt'), Array.from({ length: 120 }, () => big.slice(0, 100)).join('\n'));
    const result = await backend({ contextWindow: 8000, maxOutputTokens: 512 }).run(agentRequest('triage', root, { maxTokens: 1_000_000 }));
    expect(result).toMatchObject({ ok: true, output: { decision: 'noop' } });
    const last = server.requests.at(-1)!.body.messages;
    expect(last[1].content).toContain('Goal: Fix small reported bugs.');
    expect(last.some((message: { content: string }) => message.content.includes('[Context compacted:'))).toBe(true);
    expect(last.length).toBeLessThan(2 + 6 * 2);
  });
});
