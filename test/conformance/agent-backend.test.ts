/**
 * Every backend against the one AgentBackend contract: the mock, and the real
 * clients against local fakes of their model APIs — the real `claude` binary
 * (isolated HOME, retries off), the official OpenAI SDK, and Ollama's native
 * API, the real `codex` binary against a fake Responses API. Each harness only translates the suite's model script into its fake's
 * wire-level steps.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { createClaudeCodeBackend } from '../../backends/claude-code/index.js';
import { createCodexBackend } from '../../backends/codex/index.js';
import { MockBackend, type MockScenario } from '../../backends/mock/index.js';
import { createOllamaBackend } from '../../backends/ollama/index.js';
import { createOpenAIBackend } from '../../backends/openai/index.js';
import type { AgentRole } from '../../src/core/ports/index.js';
import { describeAgentBackendConformance, type BackendUnderTest, type ModelScript } from '../../src/testing/conformance/index.js';
import { anthropicErrors, startFakeAnthropicServer, text, toolUse, type AnthropicStep } from '../fakes/fake-anthropic-server.js';
import { startFakeOllamaServer, type OllamaStep } from '../fakes/fake-ollama-server.js';
import { startFakeOpenAIServer, type OpenAIStep } from '../fakes/fake-openai-server.js';
import type { FakeServer } from '../fakes/http-fake.js';
import { startFakeResponsesServer, type ResponsesStep } from '../fakes/fake-responses-server.js';

const CLAUDE = path.resolve('node_modules/.bin/claude');
const CODEX = path.resolve('node_modules/.bin/codex');
const FOREVER = 40;
const bodies = (server: FakeServer) => () => server.requests.map((request) => JSON.stringify(request.body));

// ------------------------------------------------------------------ mock

const MOCK_ANSWER: Record<AgentRole, MockScenario> = { triage: 'report', implement: 'act-accept', check: 'reject' };

function mockFor(script: ModelScript): BackendUnderTest {
  switch (script.kind) {
    case 'answer':
      return { backend: new MockBackend({ scenarios: [MOCK_ANSWER[script.role]], targetPath: script.write?.path ?? 'src/example.ts' }) };
    case 'tools-forever':
      return { backend: new MockBackend({ scenarios: ['runaway'] }) };
    case 'expensive':
      return { backend: new MockBackend({ scenarios: ['runaway'], usage: { check: { inputTokens: script.tokensPerCall - 1000, outputTokens: 1000 } } }) };
    case 'refuse':
      // A refusal spends nothing (the suite holds every backend to it).
      return { backend: new MockBackend({ scenarios: ['error'], usage: { implement: { inputTokens: 0, outputTokens: 0 } } }) };
  }
}

describeAgentBackendConformance('mock', ({ script }) => mockFor(script));

// ---------------------------------------------------------------- openai

function openAISteps(script: ModelScript): OpenAIStep[] {
  const glob = (index: number, usage?: { input: number; output: number }): OpenAIStep => ({
    toolCalls: [{ name: 'glob', arguments: { pattern: `**/*${index}` } }],
    ...(usage ? { usage } : {}),
  });
  switch (script.kind) {
    case 'answer':
      return [
        ...(script.write ? [{ toolCalls: [{ name: 'write_file', arguments: { path: script.write.path, content: script.write.content } }] }] : []),
        { toolCalls: [{ name: 'done', arguments: { result: script.text } }] },
      ];
    case 'tools-forever':
      return Array.from({ length: FOREVER }, (_, index) => glob(index));
    case 'expensive':
      return Array.from({ length: FOREVER }, (_, index) => glob(index, { input: script.tokensPerCall - 1000, output: 1000 }));
    case 'refuse':
      return [{ error: { status: 401, message: 'Incorrect API key provided: k.', type: 'invalid_request_error', code: 'invalid_api_key' } }];
  }
}

describeAgentBackendConformance('openai (SDK tool loop, fake server)', async ({ script, root }) => {
  const server = await startFakeOpenAIServer(openAISteps(script));
  const backend = createOpenAIBackend({
    model: 'gpt-4o-mini', apiKey: 'k', baseURL: `${server.url}/v1`, projectRoot: root, sleep: async () => {}, random: () => 0.5, maxAttempts: 1,
  });
  return { backend, modelCalls: () => server.requests.length, modelRequests: bodies(server), close: () => server.close() };
});

// ---------------------------------------------------------------- ollama

function ollamaSteps(script: ModelScript): OllamaStep[] {
  const grep = (index: number, usage?: { input: number; output: number }): OllamaStep => ({
    toolCalls: [{ name: 'grep', arguments: { pattern: `needle${index}` } }],
    ...(usage ? { usage } : {}),
  });
  switch (script.kind) {
    case 'answer':
      return [
        ...(script.write ? [{ toolCalls: [{ name: 'write_file', arguments: { path: script.write.path, content: script.write.content } }] }] : []),
        { toolCalls: [{ name: 'done', arguments: { result: script.text } }] },
      ];
    case 'tools-forever':
      return Array.from({ length: FOREVER }, (_, index) => grep(index));
    case 'expensive':
      return Array.from({ length: FOREVER }, (_, index) => grep(index, { input: script.tokensPerCall - 1000, output: 1000 }));
    case 'refuse':
      return [{ error: { status: 401, message: 'unauthorized' } }];
  }
}

describeAgentBackendConformance('ollama (native API, fake server)', async ({ script, root }) => {
  const server = await startFakeOllamaServer(ollamaSteps(script));
  const backend = createOllamaBackend({ host: server.url, model: 'qwen2.5-coder:7b', projectRoot: root, sleep: async () => {}, random: () => 0.5, maxAttempts: 1 });
  return { backend, modelCalls: () => server.requests.length, modelRequests: bodies(server), close: () => server.close() };
}, { cases: ['roles', 'budget', 'max-turns', 'failure-as-data', 'untrusted-input'] });

// ----------------------------------------------------------- claude code

function claudeSteps(script: ModelScript): AnthropicStep[] {
  const glob = (index: number, usage?: { input: number; output: number }) => toolUse('Glob', { pattern: `*${index}` }, usage);
  switch (script.kind) {
    case 'answer':
      return [
        ...(script.write ? [toolUse('Write', { file_path: script.write.absolutePath, content: script.write.content })] : []),
        text(script.text),
      ];
    case 'tools-forever':
      return Array.from({ length: FOREVER }, (_, index) => glob(index));
    case 'expensive':
      return Array.from({ length: FOREVER }, (_, index) => glob(index, { input: script.tokensPerCall - 1000, output: 1000 }));
    case 'refuse':
      return [anthropicErrors.auth()];
  }
}

let claudeHome: Promise<string> | undefined;
afterAll(async () => {
  if (claudeHome) await rm(await claudeHome, { recursive: true, force: true });
});

// The real binary costs ~1 s per call: only the cases the CLI-specific tests in backend-claude-code.test.ts do not cover.
describeAgentBackendConformance('claude-code (real CLI, fake Messages API)', async ({ script, root }) => {
  const home = await (claudeHome ??= mkdtemp(path.join(tmpdir(), 'loop-conformance-claude-home-')));
  const server = await startFakeAnthropicServer(claudeSteps(script));
  const backend = createClaudeCodeBackend({
    binary: CLAUDE,
    home,
    inheritEnv: false,
    maxRetries: 0,
    projectRoot: root,
    timeoutMs: 600_000,
    killGraceMs: 500,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'dummy', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
  });
  return {
    backend,
    modelCalls: () => server.messageRequests().length,
    modelRequests: () => server.messageRequests().map((request) => JSON.stringify(request.body)),
    close: () => server.close(),
  };
}, { cases: ['roles', 'read-only', 'budget', 'abort', 'untrusted-input'], roles: ['check'] });

// ----------------------------------------------------------------- codex

function codexSteps(script: ModelScript): ResponsesStep[] {
  // Without a shell Codex's only tool is apply_patch; a patch on a missing file fails and the model goes on.
  const probe = (index: number, usage?: { input: number; output: number }): ResponsesStep => ({
    patch: `*** Begin Patch\n*** Update File: missing-${index}.txt\n@@\n-a\n+b\n*** End Patch\n`,
    ...(usage ? { usage } : {}),
  });
  switch (script.kind) {
    case 'answer':
      return [
        ...(script.write ? [{ patch: `*** Begin Patch\n*** Add File: ${script.write.path}\n${script.write.content.split('\n').filter(Boolean).map((line) => `+${line}`).join('\n')}\n*** End Patch\n` }] : []),
        { text: script.text },
      ];
    case 'tools-forever':
      return Array.from({ length: FOREVER }, (_, index) => probe(index));
    case 'expensive':
      return Array.from({ length: FOREVER }, (_, index) => probe(index, { input: script.tokensPerCall - 1000, output: 1000 }));
    case 'refuse':
      return [{ error: { status: 401, message: 'Incorrect API key provided: sk-te***.', code: 'invalid_api_key' } }];
  }
}

// The real binary starts in ~0.3 s; every case runs.
describeAgentBackendConformance('codex (real CLI, fake Responses API)', async ({ script, root }) => {
  const server = await startFakeResponsesServer(codexSteps(script));
  const backend = createCodexBackend({
    binary: CODEX, baseUrl: `${server.url}/v1`, model: 'fake-codex', maxRetries: 0, projectRoot: root, timeoutMs: 600_000, killGraceMs: 500,
    env: { OPENAI_API_KEY: 'sk-test' },
  });
  return {
    backend,
    modelCalls: () => server.modelRequests().length,
    modelRequests: () => server.modelRequests().map((request) => JSON.stringify(request.body)),
    close: () => server.close(),
  };
});
