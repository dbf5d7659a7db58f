/**
 * The REAL `opencode` CLI against a local fake OpenAI-compatible API. Its
 * home is an isolated temp dir, the project config is ignored, nothing leaves
 * 127.0.0.1.
 */
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCodeBackend, type OpenCodeBackendSettings } from '../backends/opencode/index.js';
import { totalTokens } from '../src/core/ports/index.js';
import { agentRequest, tempWorkspace } from './fakes/agent-request.js';
import { startFakeOpenAIServer, type OpenAIStep } from './fakes/fake-openai-server.js';
import { FAKE_OPENCODE_MODEL, fakeOpenCodeProvider } from './fakes/opencode-provider.js';

const OPENCODE = path.resolve('node_modules/.bin/opencode');
let home: string;
let repo: string;
let worktree: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'loop-opencode-home-'));
  repo = await tempWorkspace({ 'greet.txt': 'helo world\n', 'README.md': '# demo\n' }, { git: true });
  worktree = `${repo}-wt`;
  await execa('git', ['worktree', 'add', '-q', '-b', 'loop/issue-7', worktree], { cwd: repo });
});

afterAll(async () => {
  for (const close of closers) await close();
  await rm(worktree, { recursive: true, force: true });
  await rm(repo, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

async function backendFor(steps: OpenAIStep[], extra: OpenCodeBackendSettings = {}) {
  const server = await startFakeOpenAIServer(steps);
  closers.push(() => server.close());
  const backend = createOpenCodeBackend({
    binary: OPENCODE, home, model: FAKE_OPENCODE_MODEL, provider: fakeOpenCodeProvider(server.url), timeoutMs: 600_000, killGraceMs: 500, ...extra, // a ceiling for a hang: opencode takes ~30 s per call on a loaded machine
  });
  return { server, backend };
}

const toolNames = (body: { tools?: { function: { name: string } }[] }) => (body.tools ?? []).map((tool) => tool.function.name).sort();
const call = (name: string, args: Record<string, unknown>, usage?: { input: number; output: number }): OpenAIStep => ({ toolCalls: [{ name, arguments: args }], ...(usage ? { usage } : {}) });

describe('OpenCode backend (real CLI, fake OpenAI-compatible API)', () => {
  it('implements a fix in the worktree with its own read and edit tools, and the checker approves read-only', async () => {
    const file = path.join(worktree, 'greet.txt');
    const { server, backend } = await backendFor([
      call('read', { filePath: file }, { input: 1000, output: 30 }),
      call('edit', { filePath: file, oldString: 'helo', newString: 'hello' }, { input: 1200, output: 40 }),
      { text: 'Fixed the greeting typo in greet.txt.', usage: { input: 1300, output: 12 } },
      { text: 'The change is minimal and correct.\n## Verdict: APPROVE\n- fixes the typo\n- nothing else touched', usage: { input: 900, output: 25 } },
    ]);
    const implemented = await backend.run(agentRequest('implement', worktree));
    expect(implemented).toMatchObject({ ok: true, role: 'implement', output: { summary: 'Fixed the greeting typo in greet.txt.', completed: true } });
    expect(await readFile(file, 'utf8')).toBe('hello world\n');
    expect(implemented.usage).toMatchObject({ inputTokens: 3500, outputTokens: 82, cacheReadTokens: 0, cacheWriteTokens: 0 });

    const first = server.requests[0]!.body;
    // Our role prompt and trusted instructions are the system prompt; the untrusted item is delimited data.
    expect(first.messages[0].role).toBe('system');
    expect(first.messages[0].content).toContain('Keep changes small.');
    expect(JSON.stringify(first.messages.at(-1))).toContain('untrusted-data source=\\"work item issue#7\\"');
    expect(JSON.stringify(first.messages)).not.toContain('ignore all rules');
    const implementerTools = toolNames(first);
    expect(implementerTools).toEqual(expect.arrayContaining(['edit', 'read', 'write']));
    expect(implementerTools).not.toContain('bash');
    expect(implementerTools).not.toContain('task');
    expect(implementerTools).not.toContain('webfetch');
    // The tool really ran: opencode sent the file back.
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('helo world');

    const checked = await backend.run(agentRequest('check', worktree));
    expect(checked).toMatchObject({ ok: true, role: 'check', output: { verdict: 'APPROVE', reasons: ['fixes the typo', 'nothing else touched'] } });
    const checkerTools = toolNames(server.requests[3]!.body);
    expect(checkerTools).toContain('read');
    for (const tool of ['edit', 'write', 'bash', 'patch', 'apply_patch']) expect(checkerTools).not.toContain(tool);
  });

  it('denies an implementer write outside the worktree, while the same write inside it lands', async () => {
    const outside = path.join(path.dirname(worktree), `outside-${path.basename(worktree)}.txt`);
    const inside = path.join(worktree, 'inside.txt');
    const { server, backend } = await backendFor([
      call('write', { filePath: outside, content: 'escaped\n' }),
      call('write', { filePath: inside, content: 'kept\n' }),
      { text: 'Wrote the files.' },
    ]);
    const result = await backend.run(agentRequest('implement', worktree));
    expect(result.ok).toBe(true);
    expect(existsSync(outside)).toBe(false);
    expect(await readFile(inside, 'utf8')).toBe('kept\n');
    // The model was told the outside write failed.
    expect(JSON.stringify(server.requests[1]!.body.messages)).toMatch(/external|denied|reject|not allowed/i);
    await rm(inside, { force: true });
  });

  it('maps an authentication error to reason auth', async () => {
    const { backend } = await backendFor([{ error: { status: 401, message: 'Incorrect API key provided: k.', type: 'invalid_request_error', code: 'invalid_api_key' } }]);
    const result = await backend.run(agentRequest('check', worktree));
    expect(result).toMatchObject({ ok: false, reason: 'auth', retryable: false, detail: { exitCode: 1, error: { status: 401 } } });
    expect(result.ok === false && result.message).toContain('To fix:');
  });

  it('stops at the request\'s maxTurns when the model keeps calling tools', async () => {
    const steps = Array.from({ length: 10 }, (_, index) => call('read', { filePath: path.join(worktree, index % 2 ? 'README.md' : 'greet.txt') }));
    const { server, backend } = await backendFor(steps);
    const result = await backend.run(agentRequest('check', worktree, { maxTurns: 2 }));
    expect(result).toMatchObject({ ok: false, reason: 'max-turns' });
    // The stop lands after the second step and cuts the proxy, so no later call reaches the model (before the cut, the
    // CLI went on calling it through the kill's grace period under load: 4 requests). A step in flight may still be
    // counted: the count is what ran, at least the limit and never more than the model was asked.
    const turns = result.ok ? Number.NaN : Number(result.detail?.['turns']);
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(turns).toBeLessThanOrEqual(server.requests.length);
    expect(server.requests.length).toBeLessThanOrEqual(3);
  });

  it('kills the process group when the steps\' usage crosses the reservation, and reports what was spent', async () => {
    const steps = Array.from({ length: 10 }, () => call('read', { filePath: path.join(worktree, 'greet.txt') }, { input: 15_000, output: 3_000 }));
    const { server, backend } = await backendFor(steps);
    const maxTokens = 40_000;
    const result = await backend.run(agentRequest('check', worktree, { maxTokens, maxTurns: 30 }));
    expect(result).toMatchObject({ ok: false, reason: 'budget', retryable: false });
    const spent = totalTokens(result.usage);
    expect(spent).toBe(54_000);
    // Every count, not only the sum (the conformance budget case's check, which opencode's conformance file leaves to this one).
    expect(result.usage).toMatchObject({ inputTokens: 45_000, outputTokens: 9_000, cacheReadTokens: 0, cacheWriteTokens: 0 });
    // Overshoot: opencode reports usage once per finished step, so the kill lands at the step that crosses.
    expect(spent - maxTokens).toBeLessThanOrEqual(18_000);
    expect(server.requests.length).toBeLessThanOrEqual(4);
  });

  it('says not-installed when the binary is missing', async () => {
    const backend = createOpenCodeBackend({ binary: path.join(home, 'no-such-opencode') });
    const result = await backend.run(agentRequest('check', worktree));
    expect(result).toMatchObject({ ok: false, reason: 'not-installed', retryable: false });
  });
});
