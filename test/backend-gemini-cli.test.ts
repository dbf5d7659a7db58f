/**
 * The REAL `gemini` CLI against a local fake Gemini API. Its home
 * (GEMINI_CLI_HOME) is an isolated temp dir with our settings.json; it runs in
 * bubblewrap behind the shared metering proxy, nothing leaves 127.0.0.1.
 */
import { execa } from 'execa';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGeminiCliBackend, type GeminiCliBackendSettings } from '../backends/gemini-cli/index.js';
import { agentRequest, tempWorkspace } from './fakes/agent-request.js';
import { geminiCall, geminiText, startFakeGeminiServer, type GeminiStep } from './fakes/fake-gemini-server.js';

const GEMINI = path.resolve('node_modules/.bin/gemini');
let home: string;
let repo: string;
let worktree: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'loop-gemini-home-'));
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

async function backendFor(steps: GeminiStep[], extra: GeminiCliBackendSettings = {}) {
  const server = await startFakeGeminiServer(steps);
  closers.push(() => server.close());
  const backend = createGeminiCliBackend({
    binary: GEMINI, home, timeoutMs: 600_000, killGraceMs: 500, env: { GEMINI_API_KEY: 'dummy', GOOGLE_GEMINI_BASE_URL: server.url }, ...extra,
  });
  return { server, backend };
}

const toolNames = (body: { tools?: { functionDeclarations?: { name: string }[] }[] }) =>
  (body.tools ?? []).flatMap((tool) => tool.functionDeclarations ?? []).map((declaration) => declaration.name).sort();

// A bad key (reason auth, not retryable, with a fix) and the kill at the reservation mid-stream run in the agent
// guarantee matrix, (c) and (d), with the same fake answers (test/agent-guarantee-matrix-gemini-cli.test.ts).
describe('Gemini CLI backend (real CLI, fake Gemini API)', () => {
  it('implements a fix in the worktree with its own read and replace tools, and the checker approves read-only', async () => {
    const file = path.join(worktree, 'greet.txt');
    const { server, backend } = await backendFor([
      geminiCall('read_file', { file_path: file }, { input: 1000, output: 30 }),
      geminiCall('replace', { file_path: file, old_string: 'helo', new_string: 'hello', instruction: 'fix the typo' }, { input: 1200, output: 40 }),
      geminiText('Fixed the greeting typo in greet.txt.', { input: 1300, output: 12 }),
      geminiText('The change is minimal and correct.\n## Verdict: APPROVE\n- fixes the typo\n- nothing else touched', { input: 900, output: 25 }),
    ]);
    const implemented = await backend.run(agentRequest('implement', worktree));
    expect(implemented).toMatchObject({ ok: true, role: 'implement', output: { summary: 'Fixed the greeting typo in greet.txt.', completed: true } });
    expect(await readFile(file, 'utf8')).toBe('hello world\n');
    // Usage comes from the wire through the meter: the three scripted calls (side calls report zero).
    expect(implemented.usage).toMatchObject({ inputTokens: 3500, outputTokens: 82, cacheReadTokens: 0 });

    const streamed = server.streamRequests();
    const first = streamed[0]!.body;
    expect(JSON.stringify(first.contents)).toContain('Keep changes small.');
    expect(JSON.stringify(first.contents)).toContain('untrusted-data source=\\"work item issue#7\\"');
    expect(JSON.stringify(first.contents)).not.toContain('ignore all rules');
    expect(toolNames(first)).toEqual(expect.arrayContaining(['read_file', 'replace', 'write_file']));
    expect(toolNames(first)).not.toContain('run_shell_command');
    expect(toolNames(first)).not.toContain('web_fetch');
    expect(JSON.stringify(streamed[1]!.body.contents)).toContain('helo world');

    const checked = await backend.run(agentRequest('check', worktree));
    expect(checked).toMatchObject({ ok: true, role: 'check', output: { verdict: 'APPROVE', reasons: ['fixes the typo', 'nothing else touched'] } });
    const checkerTools = toolNames(server.streamRequests()[3]!.body);
    expect(checkerTools).toContain('read_file');
    for (const tool of ['replace', 'write_file', 'run_shell_command']) expect(checkerTools).not.toContain(tool);
  });

  it('says auth (CLI exit 41) when no API key is set', async () => {
    const { server, backend } = await backendFor([], { env: { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' } });
    const result = await backend.run(agentRequest('check', worktree));
    expect(result).toMatchObject({ ok: false, reason: 'auth', detail: { exitCode: 41 } });
    expect(server.requests).toHaveLength(0);
  });

  it('stops at the request\'s maxTurns (maxSessionTurns, CLI exit 53)', async () => {
    const steps = Array.from({ length: 6 }, (_, index) => geminiCall('read_file', { file_path: path.join(worktree, index % 2 ? 'README.md' : 'greet.txt') }));
    const { server, backend } = await backendFor(steps);
    const result = await backend.run(agentRequest('check', worktree, { maxTurns: 2 }));
    expect(result).toMatchObject({ ok: false, reason: 'max-turns', detail: { exitCode: 53 } });
    expect(server.streamRequests()).toHaveLength(2);
  });

  it('says not-installed when the binary is missing', async () => {
    const backend = createGeminiCliBackend({ binary: path.join(home, 'no-such-gemini') });
    const result = await backend.run(agentRequest('check', worktree));
    expect(result).toMatchObject({ ok: false, reason: 'not-installed', retryable: false });
  });
});
