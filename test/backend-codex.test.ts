/**
 * The Codex backend with the real `codex` 0.169 binary against a local fake
 * of the Responses API: error events mapped from real exits, a model that
 * streams past the reservation killed mid-stream with its spend reported, and
 * the argument/config mapping golden-tested.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodexBackend, toCodexArgs, toCodexConfigToml } from '../backends/codex/index.js';
import { conformanceRequest, makeConformanceRoot, recordingFiles } from '../src/testing/conformance/agent-backend-fixtures.js';
import { startFakeResponsesServer, type ResponsesStep } from './fakes/fake-responses-server.js';

const CODEX = path.resolve('node_modules/.bin/codex');
let root: string;
let homes: string;
beforeAll(async () => {
  root = await makeConformanceRoot();
  homes = await mkdtemp(path.join(process.cwd(), '.codex-homes-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(homes, { recursive: true, force: true });
});

async function runCheck(steps: ResponsesStep[], maxTokens = 50_000) {
  const server = await startFakeResponsesServer(steps);
  try {
    const backend = createCodexBackend({
      binary: CODEX, baseUrl: `${server.url}/v1`, model: 'fake-codex', maxRetries: 0, projectRoot: root, homesDir: homes, killGraceMs: 300, env: { OPENAI_API_KEY: 'sk-test' },
    });
    const request = { ...conformanceRequest('check', root, recordingFiles(root)), maxTokens };
    return { result: await backend.run(request), calls: server.modelRequests().length };
  } finally {
    await server.close();
  }
}

describe('codex backend (real binary, fake Responses API)', () => {
  it('maps HTTP and response.failed errors to reasons', async () => {
    const cases: Array<[ResponsesStep, string, boolean]> = [
      [{ error: { status: 401, message: 'Incorrect API key provided: sk-te***.', code: 'invalid_api_key' } }, 'auth', false],
      [{ error: { status: 429, message: 'You exceeded your current quota.', code: 'insufficient_quota', type: 'insufficient_quota' } }, 'quota-exhausted', false],
      [{ error: { status: 429, message: 'Rate limit reached for requests', code: 'rate_limit_exceeded' } }, 'rate-limited', true],
      [{ failed: { code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' } }, 'error', false],
      [{ failed: { code: 'insufficient_quota', message: 'You exceeded your current quota.' } }, 'quota-exhausted', false],
    ];
    for (const [step, reason, retryable] of cases) {
      const { result } = await runCheck([step]);
      expect(result, JSON.stringify(step)).toMatchObject({ ok: false, reason, retryable });
      if (!result.ok) expect(result.message).toMatch(/To fix:/);
    }
  });

  it('kills a model that streams past the reservation and reports the spend (overshoot bounded)', async () => {
    const maxTokens = 5_000;
    const { result } = await runCheck([{ runaway: { chunk: 400 } }], maxTokens);
    expect(result).toMatchObject({ ok: false, reason: 'budget' });
    const spent = result.usage.inputTokens + result.usage.outputTokens + result.usage.cacheReadTokens + result.usage.cacheWriteTokens;
    expect(spent).toBeGreaterThanOrEqual(maxTokens);
    // The meter sees every 100-token delta; the kill lands within a few deltas of the line.
    expect(spent - maxTokens).toBeLessThan(2_000);
    if (process.env["PRINT_OVERSHOOT"]) console.log(`codex overshoot: ${spent - maxTokens} tokens past ${maxTokens}`);
  });

  it('reports a missing binary as not-installed', async () => {
    const backend = createCodexBackend({ binary: '/nonexistent/codex', baseUrl: 'http://127.0.0.1:9/v1', homesDir: homes, projectRoot: root });
    expect(await backend.run(conformanceRequest('check', root, recordingFiles(root)))).toMatchObject({ ok: false, reason: 'not-installed' });
  });
});

describe('codex argument and config mapping (golden)', () => {
  const permissions = { write: false, execute: false };
  it('runs read-only roles in the read-only sandbox with the shell off', () => {
    expect(toCodexArgs({ role: 'check', permissions, cwd: '/repo', model: 'gpt-5.1-codex', catalogPath: '/h/models.json' })).toMatchInlineSnapshot(`
      [
        "exec",
        "--json",
        "--ephemeral",
        "--skip-git-repo-check",
        "--ignore-rules",
        "--color",
        "never",
        "--model",
        "gpt-5.1-codex",
        "--sandbox",
        "read-only",
        "-C",
        "/repo",
        "-c",
        "approval_policy="never"",
        "-c",
        "web_search="disabled"",
        "-c",
        "model_catalog_json="/h/models.json"",
        "-c",
        "sandbox_workspace_write.network_access=false",
        "--disable",
        "multi_agent",
        "--disable",
        "goals",
        "--disable",
        "image_generation",
        "--disable",
        "browser_use",
        "--disable",
        "computer_use",
        "--disable",
        "apps",
        "--disable",
        "plugins",
        "--disable",
        "hooks",
        "--disable",
        "memories",
        "--disable",
        "shell_tool",
        "--disable",
        "unified_exec",
        "-",
      ]
    `);
  });
  it('runs the implementer in workspace-write confined to the worktree; the shell only when asked', () => {
    const args = toCodexArgs({ role: 'implement', permissions: { write: true, execute: true }, cwd: '/wt', model: 'm', catalogPath: '/h/c.json', shell: true });
    expect(args.slice(args.indexOf('--sandbox'), args.indexOf('--sandbox') + 4)).toEqual(['--sandbox', 'workspace-write', '-C', '/wt']);
    expect(args).not.toContain('shell_tool');
    expect(toCodexArgs({ role: 'implement', permissions: { write: true, execute: true }, cwd: '/wt', model: 'm', catalogPath: '/h/c.json' })).toContain('shell_tool');
  });
  it('writes one provider that points at the endpoint and reads the key from a variable; analytics off', () => {
    expect(toCodexConfigToml({ baseUrl: 'http://127.0.0.1:4000', apiKeyEnv: 'OPENAI_API_KEY', model: 'gpt-5.1-codex', maxRetries: 0, developerInstructions: 'Be "careful".\nLine two.' })).toMatchInlineSnapshot(`
      "model = "gpt-5.1-codex"
      model_provider = "loop-runtime"
      check_for_update_on_startup = false
      developer_instructions = "Be \\"careful\\".\\nLine two."

      [model_providers.loop-runtime]
      name = "loop-runtime"
      base_url = "http://127.0.0.1:4000"
      wire_api = "responses"
      env_key = "OPENAI_API_KEY"
      request_max_retries = 0
      stream_max_retries = 0

      [analytics]
      enabled = false
      "
    `);
  });
});
