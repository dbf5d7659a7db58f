/**
 * The agent guarantees × every agent CLI backend, each with its REAL binary
 * against its local fake model server. One table: adding a backend means
 * adding a row, and every promise then runs against it.
 *
 * (a) a model told to read `../.env`, `<checkout>/.npmrc` and
 *     `<checkout>/secrets/prod.json` (absolute and relative) in triage,
 *     implement and check gets no canary: none reaches a request body the fake
 *     received, none lands in the worktree — and the allowed twin (a normal
 *     file in its own directory) is read;
 * (b) an unreachable endpoint costs 0 and the result names it;
 * (c) a ≥ 400 answer (a bad key) costs 0 and is reason auth, not retryable, with a fix;
 * (d) a model streaming past the reservation is stopped near it (reason budget, not retryable);
 * (e) at L3 without bubblewrap the CLI is refused before any model call,
 *     and below L3 with the opt-out it runs (logged), still metered;
 * (f) a 120-character TMPDIR does not break the contained run;
 * (g) a model call the agent retries (5xx answers) is on the request's progress events with the count of failed
 *     attempts, the configured URL and the status; the healthy twin has none.
 *
 * The in-process API backends (openai, ollama) run no CLI, so only (b), (c) and (g) apply to them.
 *
 * This module is the case table; one test file per row (`agent-guarantee-matrix-<backend>.test.ts`) runs it, so the
 * CLIs run in parallel forks. Each file sets up its own repository, worktree and fakes.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaudeCodeBackend } from '../backends/claude-code/index.js';
import { createCodexBackend } from '../backends/codex/index.js';
import { createGeminiCliBackend } from '../backends/gemini-cli/index.js';
import { createOpenCodeBackend } from '../backends/opencode/index.js';
import { createOllamaBackend } from '../backends/ollama/index.js';
import { createOpenAIBackend } from '../backends/openai/index.js';
import type { ContainmentSettings } from '../backends/shared/contained-cli.js';
import { detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
import { worktreesDirFor } from '../src/adapters/workspace/worktrees-location.js';
import { totalTokens, type AgentBackend, type AgentProgress, type AgentRole } from '../src/core/ports/index.js';
import { agentRequest, tempWorkspace } from './fakes/agent-request.js';
import { startFakeAnthropicServer, text, toolUse } from './fakes/fake-anthropic-server.js';
import { geminiCall, geminiErrors, geminiText, startFakeGeminiServer } from './fakes/fake-gemini-server.js';
import { startFakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAIServer } from './fakes/fake-openai-server.js';
import { startFakeResponsesServer } from './fakes/fake-responses-server.js';
import type { FakeServer, RecordedRequest } from './fakes/http-fake.js';
import { FAKE_OPENCODE_MODEL, fakeOpenCodeProvider } from './fakes/opencode-provider.js';

const bin = (name: string) => path.resolve('node_modules/.bin', name);
const CANARIES = { env: 'canary-dotenv-5b1d4e8f7f3a9c2e', npmrc: 'canary-npmrc-0a1b2c3d4e5f6789', prod: 'canary-prodjson-9f8e7d6c5b4a3210' };
const TWIN = 'twin-file-content-4242';
const EXTRA = { timeoutMs: 600_000, killGraceMs: 500 };

type Step = unknown;
interface Fake {
  server: FakeServer;
  /** Model calls the fake received. */
  calls(): RecordedRequest[];
}

/** One agent CLI backend: how to script its fake and build it. Everything else is shared. */
interface Row {
  name: string;
  start(steps: Step[]): Promise<Fake>;
  backend(url: string, extra: ContainmentSettings & { maxRetries?: number }): AgentBackend;
  /** A tool call that reads `file` (absolute) or `relative` (from the role's directory), as this CLI's model would. */
  read(file: string, relative: string): Step[];
  done(role: AgentRole): Step;
  /** A ≥ 400 answer. */
  refusal: Step;
  /** A 5xx answer the CLI retries. */
  overloaded: Step;
  /** A reply that streams output without end. */
  runaway: Step;
}

let codexHomes: string;

const finalText = (role: AgentRole) =>
  role === 'triage' ? '{"decision":"noop","summary":"nothing","findings":[],"items":[]}' : role === 'check' ? 'Fine.\n## Verdict: APPROVE\n- ok' : 'Done.';

const ROWS: Row[] = [
  {
    name: 'claude-code',
    start: async (steps) => {
      const server = await startFakeAnthropicServer(steps as never);
      return { server, calls: () => server.messageRequests() };
    },
    backend: (url, extra) =>
      createClaudeCodeBackend({ binary: bin('claude'), projectRoot: repo, inheritEnv: false, maxRetries: 0, maxTurns: 12, ...EXTRA, env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' }, ...extra }),
    // Claude's Read takes absolute paths only; its Bash tool (implementer) takes both.
    read: (file, relative) => [toolUse('Read', { file_path: file }), toolUse('Grep', { pattern: 'canary', path: relative })],
    done: (role) => text(finalText(role)),
    refusal: { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } },
    overloaded: { error: { status: 503, type: 'api_error', message: 'Service Unavailable' } },
    runaway: { content: [], runaway: { chunk: 400 } },
  },
  {
    name: 'codex',
    start: async (steps) => {
      const server = await startFakeResponsesServer(steps as never);
      return { server, calls: () => server.modelRequests() };
    },
    backend: (url, extra) =>
      createCodexBackend({ binary: bin('codex'), baseUrl: `${url}/v1`, model: 'fake-codex', maxRetries: 0, projectRoot: repo, homesDir: codexHomes, shell: true, maxTurns: 12, ...EXTRA, env: { OPENAI_API_KEY: 'sk-test-0123456789abcdef' }, ...extra }),
    // Codex reads through its shell tool (our sandbox confines it).
    read: (file, relative) => [{ call: 'exec_command', arguments: { cmd: `cat ${file} ${relative}`, yield_time_ms: 2000 } }],
    done: (role) => ({ text: finalText(role) }),
    refusal: { error: { status: 401, message: 'Incorrect API key provided.', code: 'invalid_api_key' } },
    overloaded: { error: { status: 503, message: 'Service Unavailable', type: 'server_error' } },
    runaway: { runaway: { chunk: 400 } },
  },
  {
    name: 'opencode',
    start: async (steps) => {
      const server = await startFakeOpenAIServer(steps as never);
      return { server, calls: () => server.requests.filter((request) => request.method === 'POST') };
    },
    backend: (url, extra) => createOpenCodeBackend({ binary: bin('opencode'), model: FAKE_OPENCODE_MODEL, provider: fakeOpenCodeProvider(url), projectRoot: repo, maxTurns: 12, ...EXTRA, ...extra }),
    read: (file, relative) => [{ toolCalls: [{ name: 'read', arguments: { filePath: file } }] }, { toolCalls: [{ name: 'read', arguments: { filePath: relative } }] }],
    done: (role) => ({ text: finalText(role) }),
    refusal: { error: { status: 401, message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } },
    // retry-after-ms: opencode waits what the server asks instead of its 2 s, 4 s back-off.
    overloaded: { error: { status: 503, message: 'Service Unavailable', type: 'server_error', code: null, headers: { 'retry-after-ms': '50' } } },
    runaway: { runaway: { chunk: 400 } },
  },
  {
    name: 'gemini-cli',
    start: async (steps) => {
      const server = await startFakeGeminiServer(steps as never);
      return { server, calls: () => server.requests.filter((request) => request.method === 'POST') };
    },
    backend: (url, extra) =>
      createGeminiCliBackend({ binary: bin('gemini'), projectRoot: repo, maxTurns: 12, ...EXTRA, env: { GEMINI_API_KEY: 'gemini-test-0123456789', GOOGLE_GEMINI_BASE_URL: url }, ...extra }),
    read: (file, relative) => [geminiCall('read_file', { file_path: file }), geminiCall('read_file', { file_path: relative })],
    done: (role) => geminiText(finalText(role)),
    refusal: geminiErrors.auth(),
    overloaded: geminiErrors.server(),
    runaway: { parts: [{ text: '…' }], usage: { input: 2000 }, runawayOutputPerChunk: 500 },
  },
];

let base: string;
let repo: string;
let worktree: string;
const closers: (() => Promise<unknown>)[] = [];

/** The names of the agent CLI rows, e.g. `'claude-code'`; `describeAgentGuarantees(name)` runs one. */
export const CLI_ROWS = ['claude-code', 'codex', 'opencode', 'gemini-cli'] as const;

function useMatrixFixtures(): void {
  beforeAll(async () => {
    codexHomes = await mkdtemp(path.join(process.cwd(), '.codex-homes-'));
    base = await mkdtemp(path.join(tmpdir(), 'loop-matrix-'));
    await writeFile(path.join(base, '.env'), `API_TOKEN=${CANARIES.env}\n`);
    repo = await tempWorkspace({ 'greet.txt': `${TWIN}\n`, '.gitignore': '.env\n.npmrc\nsecrets/\n' }, { git: true });
    await writeFile(path.join(repo, '.env'), `API_TOKEN=${CANARIES.env}\n`);
    await writeFile(path.join(repo, '.npmrc'), `//registry.example.invalid/:_authToken=${CANARIES.npmrc}\n`);
    await mkdir(path.join(repo, 'secrets'));
    await writeFile(path.join(repo, 'secrets', 'prod.json'), JSON.stringify({ password: CANARIES.prod }));
    worktree = path.join(worktreesDirFor(repo), 'a1');
    await mkdir(path.dirname(worktree), { recursive: true });
    await execa('git', ['worktree', 'add', '-q', '-b', 'loop/issue-7', worktree], { cwd: repo });
    // `../.env` from the worktree.
    await writeFile(path.join(path.dirname(worktree), '.env'), `API_TOKEN=${CANARIES.env}\n`);
  });

  afterAll(async () => {
    for (const close of closers) await close();
    await execa('git', ['worktree', 'remove', '--force', worktree], { cwd: repo, reject: false });
    await rm(path.dirname(worktree), { recursive: true, force: true });
    await rm(repo, { recursive: true, force: true });
    await rm(base, { recursive: true, force: true });
    await rm(codexHomes, { recursive: true, force: true });
  });
}

async function fakeFor(row: Row, steps: Step[]): Promise<Fake> {
  const fake = await row.start(steps);
  closers.push(() => fake.server.close());
  return fake;
}

const noBwrap = () => detectSandbox({ env: { PATH: '/nonexistent-bin' } });
const sent = (fake: Fake) => JSON.stringify(fake.server.requests.map((request) => request.body));

/** Every guarantee against one agent CLI's real binary (`CLI_ROWS`), in a test file of its own. */
export function describeAgentGuarantees(name: (typeof CLI_ROWS)[number]): void {
  useMatrixFixtures();
  describe.each(ROWS.filter((row) => row.name === name))('$name', (row) => {
    it.each(['triage', 'implement', 'check'] as const)('(a) %s: no secret file reaches the model or the worktree; its own file does', async (role) => {
      const workDir = role === 'triage' ? repo : worktree;
      const targets = [
        [path.join(path.dirname(workDir), '.env'), '../.env'],
        [path.join(repo, '.npmrc'), path.relative(workDir, path.join(repo, '.npmrc')) || '.npmrc'],
        [path.join(repo, 'secrets', 'prod.json'), path.relative(workDir, path.join(repo, 'secrets', 'prod.json'))],
      ] as const;
      const steps = [...targets.flatMap(([file, relative]) => row.read(file, relative)), ...row.read(path.join(workDir, 'greet.txt'), 'greet.txt'), row.done(role)];
      const fake = await fakeFor(row, steps);
      const backend = row.backend(fake.server.url, {});
      closers.push(() => backend.close?.() ?? Promise.resolve());
      await backend.run(agentRequest(role, workDir, { maxTurns: 12 }));
      expect(fake.calls().length).toBeGreaterThan(steps.length - 1);
      const bodies = sent(fake);
      for (const canary of Object.values(CANARIES)) expect(bodies, `${row.name} ${role}`).not.toContain(canary);
      // The allowed twin: its own directory is readable.
      expect(bodies).toContain(TWIN);
      const grep = await execa('grep', ['-rl', '--exclude-dir=.git', 'canary-', worktree], { reject: false });
      expect(grep.stdout).toBe('');
    });

    it('(b) an unreachable endpoint costs 0 and the result names it', async () => {
      const fake = await fakeFor(row, [row.done('check')]);
      const url = fake.server.url;
      await fake.server.close();
      const backend = row.backend(url, {});
      const result = await backend.run(agentRequest('check', worktree));
      expect(result.ok).toBe(false);
      expect(totalTokens(result.usage)).toBe(0);
      expect(result.ok === false && result.message).toContain(new URL(url).host);
      // The exact shape, the same for every CLI: the URL the user configured and why, never loop-runtime's own proxy
      // port, an HTTP status the proxy made up, or "try again later"; a refused connection is not retried.
      const { port } = new URL(url);
      const message = result.ok === false ? result.message : '';
      expect(message).toMatch(new RegExp(`^Could not reach ${url.replace(/\/+$/, '').replace(/[.]/g, '\\.')}(/v1)? \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)\\. To fix: check the URL \\(the backend's baseUrl setting, or the provider's \\*_BASE_URL variable\\) and that the service at it is running\\.$`));
      expect(message).not.toMatch(/try again later|success|HTTP 4\d\d|HTTP 5\d\d/);
      expect([...message.matchAll(/127\.0\.0\.1:(\d+)/g)].map((match) => match[1]).every((seen) => seen === port)).toBe(true);
      expect(result).toMatchObject({ ok: false, retryable: false, detail: { providerStatus: 0, providerCode: 'ECONNREFUSED' } });
    });

    it('(c) a refused (≥ 400) request costs 0', async () => {
      const fake = await fakeFor(row, [row.refusal, row.refusal, row.refusal]);
      const result = await row.backend(fake.server.url, {}).run(agentRequest('check', worktree));
      // Every row's refusal is a bad key: reason auth, not retried, with a fix.
      expect(result).toMatchObject({ ok: false, reason: 'auth', retryable: false });
      expect(result.ok === false && result.message).toContain('To fix:');
      expect(fake.calls().length).toBeGreaterThan(0);
      expect(totalTokens(result.usage)).toBe(0);
    });

    it('(d) a model streaming past the reservation is stopped near it', async () => {
      const fake = await fakeFor(row, [row.runaway]);
      const maxTokens = 5_000;
      const result = await row.backend(fake.server.url, {}).run(agentRequest('check', worktree, { maxTokens }));
      expect(result).toMatchObject({ ok: false, reason: 'budget', retryable: false });
      const spent = totalTokens(result.usage);
      expect(spent).toBeGreaterThanOrEqual(maxTokens);
      expect(spent - maxTokens).toBeLessThan(2_500);
      console.info(`${row.name} overshoot: ${Math.round(spent - maxTokens)} tokens past a ${maxTokens}-token reservation`);
    });

    it('(e) at L3 without bubblewrap it is refused before any model call; below L3 with the opt-out it runs, logged and metered', async () => {
      const refused = await fakeFor(row, [row.done('check')]);
      const result = await row.backend(refused.server.url, { level: 'L3', allowUnsandboxed: true, detectSandbox: noBwrap }).run(agentRequest('check', worktree));
      expect(result).toMatchObject({ ok: false, reason: 'not-installed', retryable: false, detail: { code: 'SANDBOX_UNAVAILABLE' } });
      expect(refused.server.requests).toHaveLength(0);

      const log: string[] = [];
      const allowed = await fakeFor(row, [row.done('check')]);
      const twin = await row.backend(allowed.server.url, { level: 'L2', allowUnsandboxed: true, detectSandbox: noBwrap, log: (line) => log.push(line) }).run(agentRequest('check', worktree));
      expect(log.join('\n')).toMatch(/UNCONTAINED at L2/);
      expect(allowed.calls().length).toBeGreaterThan(0);
      expect(twin.ok).toBe(true);
      expect(totalTokens(twin.usage)).toBeGreaterThan(0);
    });

    it('(f) a 120-character TMPDIR does not break the contained run', async () => {
      const long = path.join(base, 'tmp-'.padEnd(120 - base.length - 1, 'x'));
      expect(long.length).toBe(120);
      await mkdir(long, { recursive: true });
      const saved = process.env['TMPDIR'];
      process.env['TMPDIR'] = long;
      try {
        const fake = await fakeFor(row, [row.done('check')]);
        const backend = row.backend(fake.server.url, {});
        const result = await backend.run(agentRequest('check', worktree));
        await backend.close?.();
        expect(result).toMatchObject({ ok: true });
      } finally {
        if (saved === undefined) delete process.env['TMPDIR'];
        else process.env['TMPDIR'] = saved;
      }
    });

    it('(g) a retried model call is on the progress events with its count; the healthy twin shows none', async () => {
      const fake = await fakeFor(row, [row.overloaded, row.overloaded, row.done('check')]);
      const events: AgentProgress[] = [];
      // claude and codex rows run with maxRetries 0 elsewhere (so a refusal fails fast); here the CLI may retry.
      const result = await row.backend(fake.server.url, { maxRetries: 3 }).run(agentRequest('check', worktree, { onProgress: (event) => events.push(event) }));
      expect(fake.calls().length).toBeGreaterThanOrEqual(3);
      expect(Math.max(0, ...events.map((event) => event.attempts))).toBe(2);
      for (const event of events) {
        expect(event).toMatchObject({ type: 'retry', failure: expect.stringMatching(/^HTTP 5\d\d$/) });
        expect(event.endpoint).toContain(new URL(fake.server.url).host);
      }
      expect(result.ok).toBe(true);

      const healthy = await fakeFor(row, [row.done('check')]);
      const quiet: AgentProgress[] = [];
      const twin = await row.backend(healthy.server.url, {}).run(agentRequest('check', worktree, { onProgress: (event) => quiet.push(event) }));
      expect(twin.ok).toBe(true);
      expect(quiet).toEqual([]);
    });
  });

}

/** The in-process API backends: no CLI to contain, but an outage and a refusal must cost 0 there too. */
const API_ROWS: { name: string; start(steps: Step[]): Promise<FakeServer>; backend(url: string, maxAttempts?: number): AgentBackend; refusal: Step; overloaded: Step }[] = [
  {
    name: 'openai',
    start: (steps) => startFakeOpenAIServer(steps as never),
    backend: (url, maxAttempts = 1) => createOpenAIBackend({ model: 'gpt-4o-mini', apiKey: 'k', baseURL: `${url}/v1`, projectRoot: repo, sleep: async () => {}, random: () => 0.5, maxAttempts }),
    refusal: { error: { status: 401, message: 'Incorrect API key provided: k.', type: 'invalid_request_error', code: 'invalid_api_key' } },
    overloaded: { error: { status: 503, message: 'Service Unavailable', type: 'server_error', code: null } },
  },
  {
    name: 'ollama',
    start: (steps) => startFakeOllamaServer(steps as never),
    backend: (url, maxAttempts = 1) => createOllamaBackend({ host: url, model: 'qwen2.5-coder:7b', projectRoot: repo, sleep: async () => {}, random: () => 0.5, maxAttempts }),
    refusal: { error: { status: 401, message: 'unauthorized' } },
    overloaded: { error: { status: 503, message: 'Service Unavailable' } },
  },
];

/** (b) and (c) against the in-process API backends (openai, ollama), in a test file of their own. */
export function describeApiGuarantees(): void {
  useMatrixFixtures();
  describe.each(API_ROWS)('$name (API backend)', (row) => {
    it('(b) an unreachable endpoint costs 0', async () => {
      const server = await row.start([]);
      await server.close();
      const result = await row.backend(server.url).run(agentRequest('check', worktree));
      expect(result.ok).toBe(false);
      expect(totalTokens(result.usage)).toBe(0);
      // The endpoint the user configured is named (not a bare "Connection error.").
      if (!result.ok) expect(result.message).toContain(new URL(server.url).host);
    });

    it('(c) a refused (≥ 400) request costs 0', async () => {
      const server = await row.start([row.refusal]);
      closers.push(() => server.close());
      const result = await row.backend(server.url).run(agentRequest('check', worktree));
      expect(result.ok).toBe(false);
      expect(server.requests.length).toBeGreaterThan(0);
      expect(totalTokens(result.usage)).toBe(0);
    });

    it('(g) a retried call is on the progress events with its count, a refused connection named so; a healthy call shows none', async () => {
      const server = await row.start([row.overloaded, row.overloaded, row.refusal]);
      closers.push(() => server.close());
      const events: AgentProgress[] = [];
      await row.backend(server.url, 4).run(agentRequest('check', worktree, { onProgress: (event) => events.push(event) }));
      expect(events.map(({ attempts, failure }) => [attempts, failure])).toEqual([[1, 'HTTP 503'], [2, 'HTTP 503']]);
      for (const event of events) expect(event.endpoint).toContain(new URL(server.url).host);

      const dead = await row.start([]);
      await dead.close();
      const refused: AgentProgress[] = [];
      await row.backend(dead.url, 2).run(agentRequest('check', worktree, { onProgress: (event) => refused.push(event) }));
      expect(refused).toMatchObject([{ type: 'retry', attempts: 1, failure: 'refused (ECONNREFUSED)' }]);

      // The twin: an answer on the first attempt (a refusal is not retried) reports nothing.
      const healthy = await row.start([row.refusal]);
      closers.push(() => healthy.close());
      const quiet: AgentProgress[] = [];
      await row.backend(healthy.url, 4).run(agentRequest('check', worktree, { onProgress: (event) => quiet.push(event) }));
      expect(healthy.requests.length).toBeGreaterThan(0);
      expect(quiet).toEqual([]);
    });
  });
}
