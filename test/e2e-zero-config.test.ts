/**
 * Zero config: projects scaffolded by the real loop-init (`--tool codex`,
 * `--tool claude`, `--tool opencode`) with NO `loop-runtime:` block run a
 * real (non-dry) tick with that tool's real agent CLI against a local fake of
 * its API — Codex and OpenCode found in the project's node_modules/.bin,
 * Claude Code on PATH; OpenCode's model chosen from the provider whose key is
 * set. With no agent installed (or, for OpenCode, no provider key to choose a
 * model from) a real run stops with exit 3 and the fix, writing nothing;
 * --dry-run still rehearses with the mock. Needs `dist/`.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeAnthropicServer, text } from './fakes/fake-anthropic-server.js';
import { startFakeResponsesServer } from './fakes/fake-responses-server.js';
import { ADD_BUG_TRIAGE, CLAUDE, git, listFiles, PACKAGE_ROOT, readText, runCli, runLogLines, spendEntries } from './e2e-fixtures.js';
import { GIT_ENV } from './git-fixtures.js';
import { cliEnvelope, cliJson } from './cli-json.js';

const run = promisify(execFile);
const LOOP_INIT = join(PACKAGE_ROOT, 'node_modules', '.bin', 'loop-init');
const CODEX = join(PACKAGE_ROOT, 'node_modules', '.bin', 'codex');
const OPENCODE = join(PACKAGE_ROOT, 'node_modules', '.bin', 'opencode');
/** node and git, and no agent CLI. */
const SYSTEM_PATH = '/usr/bin:/bin';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function scratch(prefix: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

/** `loop-init --pattern daily-triage --tool <tool>` into a fresh repository, committed as is. */
async function scaffold(tool: 'codex' | 'claude' | 'opencode'): Promise<string> {
  const repo = await scratch(`zero-config-${tool}-`);
  await run('git', ['init', '--quiet', '--initial-branch=main'], { cwd: repo });
  await run(LOOP_INIT, [repo, '--pattern', 'daily-triage', '--tool', tool], { cwd: repo });
  await run('git', ['add', '-A'], { cwd: repo });
  await run('git', ['commit', '--quiet', '-m', 'loop-init'], { cwd: repo, env: { ...process.env, ...GIT_ENV } });
  const loopMd = await readText(repo, 'LOOP.md');
  expect(loopMd).not.toContain('loop-runtime:');
  return repo;
}

interface RunJson {
  backend: string;
  backendReason: string;
  level: string;
  ticks: Array<{ kind: string; tokens: number; tickId: string; costUsd?: number | null }>;
}

/** A loop-init `--tool opencode` scaffold with the real opencode in its node_modules/.bin. */
async function opencodeProject(): Promise<string> {
  const repo = await scaffold('opencode');
  await mkdir(join(repo, 'node_modules', '.bin'), { recursive: true });
  await symlink(OPENCODE, join(repo, 'node_modules', '.bin', 'opencode'));
  return repo;
}

describe('loop-init scaffolds with no loop-runtime block run their own agent', () => {
  it('--tool codex: the real codex from the project\'s node_modules/.bin, its provider from OPENAI_BASE_URL', async () => {
    const repo = await scaffold('codex');
    await mkdir(join(repo, 'node_modules', '.bin'), { recursive: true });
    await symlink(CODEX, join(repo, 'node_modules', '.bin', 'codex'));
    const server = await startFakeResponsesServer([{ text: ADD_BUG_TRIAGE, usage: { input: 900, output: 70 } }]);
    cleanups.push(() => server.close());

    const result = await runCli(repo, ['run', 'daily-triage', '--json'], { PATH: SYSTEM_PATH, OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-zero-config' }, { timeoutMs: 120_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = cliJson(result.stdout) as RunJson;
    expect(summary.backend).toBe('codex');
    expect(summary.backendReason).toContain(".codex/skills scaffold");
    expect(summary.backendReason).toContain(join(repo, 'node_modules', '.bin', 'codex'));
    // The tick is real: the agent answered through the fake, and its spend is on disk.
    expect(server.modelRequests()).toHaveLength(1);
    expect(JSON.stringify(server.modelRequests()[0]!.body)).toContain('daily-triage');
    const tick = summary.ticks[0]!;
    expect(tick.kind).toBe('report');
    expect(tick.tokens).toBe(970);
    expect((await spendEntries(repo)).map((entry) => [entry.phase, entry.tokens])).toEqual([['triage', 970]]);
    expect(await runLogLines(repo)).toEqual([expect.objectContaining({ tick_id: tick.tickId })]);
  });

  it('--tool claude: the real claude on PATH against the fake Anthropic API, in an isolated HOME', async () => {
    const repo = await scaffold('claude');
    const shims = await scratch('zero-config-path-');
    await symlink(CLAUDE, join(shims, 'claude'));
    const home = await scratch('zero-config-home-');
    const server = await startFakeAnthropicServer([text(ADD_BUG_TRIAGE, { input: 1100, output: 60 })]);
    cleanups.push(() => server.close());

    const env = {
      PATH: `${shims}:${SYSTEM_PATH}`,
      HOME: home,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-zero-config',
      CLAUDE_CODE_MAX_RETRIES: '0',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    const result = await runCli(repo, ['run', 'daily-triage', '--json'], env, { timeoutMs: 120_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = cliJson(result.stdout) as RunJson;
    expect(summary.backend).toBe('claude-code');
    expect(summary.backendReason).toContain('.claude/skills scaffold');
    expect(server.messageRequests().length).toBeGreaterThanOrEqual(1);
    expect(summary.ticks[0]!.kind).toBe('report');
    expect(summary.ticks[0]!.tokens).toBeGreaterThan(0);
    expect((await spendEntries(repo)).map((entry) => entry.phase)).toEqual(['triage']);
  });

  it('--tool opencode: the real opencode from node_modules/.bin; with no model: its model is chosen from the key that is set (Anthropic over OpenAI), its endpoint from ANTHROPIC_BASE_URL', async () => {
    const repo = await opencodeProject();
    const anthropic = await startFakeAnthropicServer([text(ADD_BUG_TRIAGE, { input: 1000, output: 50 })]);
    cleanups.push(() => anthropic.close());
    // OPENAI_API_KEY is set too: Anthropic wins, and the OpenAI endpoint is never called.
    const openai = await startFakeResponsesServer([{ text: ADD_BUG_TRIAGE, usage: { input: 900, output: 70 } }]);
    cleanups.push(() => openai.close());
    // Claude Code is installed too, and comes first in the pattern's tools: the scaffold names opencode.
    const shims = await scratch('zero-config-path-');
    await symlink(CLAUDE, join(shims, 'claude'));
    const env = {
      PATH: `${shims}:${SYSTEM_PATH}`,
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: 'sk-ant-zero-config',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      OPENAI_API_KEY: 'sk-zero-config',
    };

    const plan = await runCli(repo, ['plan', 'daily-triage'], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('model anthropic/claude-sonnet-5 (ANTHROPIC_API_KEY is set, and wins over OPENAI_API_KEY; set model: to choose)');

    const result = await runCli(repo, ['run', 'daily-triage', '--json'], env, { timeoutMs: 150_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = cliJson(result.stdout) as RunJson;
    expect(summary.backend).toBe('opencode');
    expect(summary.backendReason).toContain("the project's opencode.json and skills/ scaffold names it");
    expect(summary.backendReason).toContain(join(repo, 'node_modules', '.bin', 'opencode'));
    expect(summary.backendReason).toContain('model anthropic/claude-sonnet-5 (ANTHROPIC_API_KEY is set');
    // The tick is real: opencode called the named endpoint for the chosen model, with the key that chose it.
    expect(anthropic.messageRequests()).toHaveLength(1);
    const request = anthropic.messageRequests()[0]!;
    expect(request.body.model).toBe('claude-sonnet-5');
    expect(request.headers['x-api-key']).toBe('sk-ant-zero-config');
    expect(JSON.stringify(request.body)).toContain('daily-triage');
    expect(openai.modelRequests()).toHaveLength(0);
    const tick = summary.ticks[0]!;
    expect(tick.kind).toBe('report');
    expect(tick.tokens).toBe(1050);
    // Spent and priced as the chosen model: claude-sonnet-5 at $2 / $10 per million tokens in and out.
    expect((await spendEntries(repo)).map((entry) => [entry.phase, entry.tokens, (entry as { costUsd?: number }).costUsd])).toEqual([['triage', 1050, 0.0025]]);
    expect(await runLogLines(repo)).toEqual([expect.objectContaining({ tick_id: tick.tickId })]);
  });

  it('--tool opencode with only OPENAI_API_KEY: openai/gpt-6-sol, against OPENAI_BASE_URL (the Responses API, streamed)', async () => {
    const repo = await opencodeProject();
    const openai = await startFakeResponsesServer([{ text: ADD_BUG_TRIAGE, usage: { input: 900, output: 70 } }]);
    cleanups.push(() => openai.close());
    const result = await runCli(repo, ['run', 'daily-triage', '--json'], { PATH: SYSTEM_PATH, OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: 'sk-zero-config' }, { timeoutMs: 150_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = cliJson(result.stdout) as RunJson;
    expect(summary.backend).toBe('opencode');
    expect(summary.backendReason).toContain('model openai/gpt-6-sol (OPENAI_API_KEY is set; set model: to choose)');
    expect(openai.modelRequests()).toHaveLength(1);
    expect(openai.modelRequests()[0]!.body.model).toBe('gpt-6-sol');
    expect(openai.modelRequests()[0]!.headers['authorization']).toBe('Bearer sk-zero-config');
    expect(summary.ticks[0]!.kind).toBe('report');
    // gpt-6-sol at $2 / $10 per million tokens in and out.
    expect((await spendEntries(repo)).map((entry) => [entry.phase, entry.tokens, (entry as { costUsd?: number }).costUsd])).toEqual([['triage', 970, 0.0025]]);
  });

  it('--tool opencode with neither ANTHROPIC_API_KEY nor OPENAI_API_KEY: no model to choose, so a real run stops with exit 3 naming both fixes, and no model is called', async () => {
    const repo = await opencodeProject();
    const result = await runCli(repo, ['run', 'daily-triage', '--json'], { PATH: SYSTEM_PATH, OPENROUTER_API_KEY: 'sk-or-zero-config' });
    expect(result.code).toBe(3);
    const error = (cliJson(result.stdout) as { ok: false; error: { code: string; message: string; fix: string } }).error;
    expect(error.code).toBe('PRECONDITION_FAILED');
    expect(error.message).toContain('neither ANTHROPIC_API_KEY nor OPENAI_API_KEY is set');
    expect(error.fix).toContain('set ANTHROPIC_API_KEY (runs anthropic/claude-sonnet-5) or OPENAI_API_KEY (runs openai/gpt-6-sol)');
    expect(error.fix).toContain('model: <provider>/<model>');
    expect(await spendEntries(repo)).toEqual([]);
  });

  it('with no agent installed a real run stops with exit 3 and one line naming the package and --backend mock, writing nothing; --dry-run rehearses with the mock', async () => {
    const repo = await scaffold('codex');
    const before = await listFiles(repo);
    const result = await runCli(repo, ['run', 'daily-triage'], { PATH: SYSTEM_PATH });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^loop-runtime: Loop daily-triage cannot run: no agent this loop can use \(codex, claude-code, opencode\) is installed.* To fix: npm install @openai\/codex, .*--backend mock to rehearse\.$/);
    const json = await runCli(repo, ['run', 'daily-triage', '--json'], { PATH: SYSTEM_PATH });
    expect(cliEnvelope(json.stdout)).toMatchObject({ ok: false, error: { code: 'BACKEND_NOT_FOUND', fix: expect.stringContaining('npm install @openai/codex') } });
    // Nothing ran, so nothing was written: no spend journal, no lease history, no run-log line.
    expect(await listFiles(repo)).toEqual(before);
    expect(git(repo, 'status', '--porcelain').trim()).toBe('');

    const rehearsal = await runCli(repo, ['run', 'daily-triage', '--dry-run', '--json'], { PATH: SYSTEM_PATH });
    expect(rehearsal.code).toBe(0);
    expect(cliJson(rehearsal.stdout)).toMatchObject({ backend: 'mock', dryRun: true });
  });
});
