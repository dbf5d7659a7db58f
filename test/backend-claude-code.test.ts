/**
 * The REAL `claude` CLI against a local fake Anthropic Messages API. HOME is
 * an isolated temp dir, retries are off, nothing leaves 127.0.0.1.
 */
import { execa } from 'execa';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaudeCodeBackend, type ClaudeCodeBackendSettings } from '../backends/claude-code/index.js';
import { agentRequest, tempWorkspace } from './fakes/agent-request.js';
import { anthropicErrors, startFakeAnthropicServer, text, toolUse, type AnthropicStep } from './fakes/fake-anthropic-server.js';

const CLAUDE = path.resolve('node_modules/.bin/claude');
let home: string;
let repo: string;
let worktree: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'loop-claude-home-'));
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

async function backendFor(steps: AnthropicStep[], extra: ClaudeCodeBackendSettings = {}) {
  const server = await startFakeAnthropicServer(steps);
  closers.push(() => server.close());
  const backend = createClaudeCodeBackend({
    binary: CLAUDE,
    home,
    inheritEnv: false,
    maxRetries: 0,
    maxTurns: 8,
    timeoutMs: 600_000,
    killGraceMs: 500,
    env: {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'dummy',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
    ...extra,
  });
  return { server, backend };
}

const toolNamesSent = (body: { tools?: { name: string }[] }) => (body.tools ?? []).map((tool) => tool.name).sort();

describe('Claude Code backend (real CLI, fake Messages API)', () => {
  it('implements a fix in the worktree through a tool_use round trip, and the checker approves', async () => {
    const file = path.join(worktree, 'greet.txt');
    const { server, backend } = await backendFor([
      toolUse('Read', { file_path: file }, { input: 1000, output: 30, cacheRead: 500 }),
      toolUse('Edit', { file_path: file, old_string: 'helo', new_string: 'hello' }, { input: 1200, output: 40 }),
      text('Fixed the greeting typo in greet.txt.', { input: 1300, output: 12 }),
      text('The change is minimal and correct.\n## Verdict: APPROVE\n- fixes the typo\n- nothing else touched', { input: 900, output: 25 }),
    ]);
    const implemented = await backend.run(agentRequest('implement', worktree));
    expect(implemented).toMatchObject({ ok: true, output: { summary: 'Fixed the greeting typo in greet.txt.', completed: true } });
    expect(await readFile(file, 'utf8')).toBe('hello world\n');
    expect(implemented.usage).toMatchObject({ inputTokens: 3500, outputTokens: 82, cacheReadTokens: 500, cacheWriteTokens: 0 });
    expect(implemented.usage.costUsd).toBeGreaterThan(0);

    const messages = server.messageRequests();
    expect(messages.length).toBe(3);
    const first = messages[0]!.body;
    // Our role prompt and trusted instructions are in the system prompt; the untrusted item is delimited data.
    expect(JSON.stringify(first.system)).toContain('Keep changes small.');
    expect(JSON.stringify(first.messages)).toContain('untrusted-data source=\\"work item issue#7\\"');
    expect(JSON.stringify(first.messages)).not.toContain('ignore all rules');
    // Contained in bubblewrap, the implementer gets its shell; the proxy put the real key back in.
    expect(toolNamesSent(first)).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write']);
    expect(messages[0]!.headers['x-api-key']).toBe('dummy');
    // The tool really ran: Claude sent the Read result back.
    expect(JSON.stringify(messages[1]!.body.messages)).toContain('helo world');

    const checked = await backend.run(agentRequest('check', worktree));
    expect(checked).toMatchObject({ ok: true, output: { verdict: 'APPROVE', reasons: ['fixes the typo', 'nothing else touched'] } });
    expect(toolNamesSent(server.messageRequests()[3]!.body)).toEqual(['Glob', 'Grep', 'Read']);
  });

  it('reports an API error (is_error with subtype success) as a failure', async () => {
    const { backend } = await backendFor([anthropicErrors.overloaded()]);
    const result = await backend.run(agentRequest('check', worktree));
    expect(result).toMatchObject({ ok: false, reason: 'error', retryable: true, detail: { isError: true, subtype: 'success', apiErrorStatus: 529, exitCode: 1 } });
  });

  it('maps an authentication error to reason auth', async () => {
    const { backend } = await backendFor([anthropicErrors.auth()]);
    const result = await backend.run(agentRequest('check', worktree));
    expect(result).toMatchObject({ ok: false, reason: 'auth', retryable: false });
  });

  it('stops at the request\'s maxTurns (passed as --max-turns, below the backend\'s own ceiling of 8)', async () => {
    const { server, backend } = await backendFor([toolUse('Glob', { pattern: '*' }), toolUse('Glob', { pattern: '**/*' }), text('never reached')]);
    const result = await backend.run(agentRequest('check', worktree, { maxTurns: 2 }));
    expect(result).toMatchObject({ ok: false, reason: 'max-turns', detail: { terminalReason: 'max_turns' } });
    expect(server.messageRequests()).toHaveLength(2);
  });

  it('kills the process mid-stream when usage crosses the reservation', async () => {
    const { backend } = await backendFor([{ content: [{ type: 'text', text: 'thinking a lot…' }], usage: { input: 2000, output: 50_000 }, hang: true }]);
    const result = await backend.run(agentRequest('check', worktree, { maxTokens: 10_000 }));
    expect(result).toMatchObject({ ok: false, reason: 'budget', retryable: false });
    expect(result.usage.outputTokens).toBe(50_000);
    // Stopped by us: SIGTERM (the CLI traps it and exits 143) or SIGKILL after the grace period.
    const detail = result.ok === false ? result.detail : undefined;
    expect(detail?.['exitCode'] === 143 || detail?.['signal'] === 'SIGTERM' || detail?.['signal'] === 'SIGKILL').toBe(true);
  });

  it('says not-installed when the binary is missing', async () => {
    const backend = createClaudeCodeBackend({ binary: path.join(home, 'no-such-claude') });
    const result = await backend.run(agentRequest('check', worktree));
    expect(result).toMatchObject({ ok: false, reason: 'not-installed', retryable: false });
    expect(result.ok === false && result.message).toContain('To fix:');
  });

  it('says auth when the CLI is not logged in', async () => {
    const { server, backend } = await backendFor([]);
    const isolated = await mkdtemp(path.join(tmpdir(), 'loop-claude-nologin-'));
    closers.push(() => rm(isolated, { recursive: true, force: true }));
    const noKey = createClaudeCodeBackend({ binary: CLAUDE, home: isolated, inheritEnv: false, maxRetries: 0, env: { ANTHROPIC_BASE_URL: server.url } });
    const result = await noKey.run(agentRequest('check', worktree));
    expect(result).toMatchObject({ ok: false, reason: 'auth', retryable: false });
    expect(backend.name).toBe('claude-code');
  });
});
