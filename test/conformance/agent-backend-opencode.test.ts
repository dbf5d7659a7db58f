/**
 * The AgentBackend contract for the REAL `opencode` CLI against a local fake
 * OpenAI-compatible API (one shared isolated home, so opencode's first-run
 * setup is paid once). The harness only translates the suite's model script
 * into the fake's wire-level steps.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { createOpenCodeBackend } from '../../backends/opencode/index.js';
import { describeAgentBackendConformance, type ModelScript } from '../../src/testing/conformance/index.js';
import { startFakeOpenAIServer, type OpenAIStep } from '../fakes/fake-openai-server.js';
import { FAKE_OPENCODE_MODEL, fakeOpenCodeProvider } from '../fakes/opencode-provider.js';

const OPENCODE = path.resolve('node_modules/.bin/opencode');
const FOREVER = 40;

function openCodeSteps(script: ModelScript): OpenAIStep[] {
  const read = (index: number, usage?: { input: number; output: number }): OpenAIStep => ({
    toolCalls: [{ name: 'glob', arguments: { pattern: `*${index}` } }],
    ...(usage ? { usage } : {}),
  });
  switch (script.kind) {
    case 'answer':
      return [
        ...(script.write ? [{ toolCalls: [{ name: 'write', arguments: { filePath: script.write.absolutePath, content: script.write.content } }] }] : []),
        { text: script.text },
      ];
    case 'tools-forever':
      return Array.from({ length: FOREVER }, (_, index) => read(index));
    case 'expensive':
      return Array.from({ length: FOREVER }, (_, index) => read(index, { input: script.tokensPerCall - 1000, output: 1000 }));
    case 'refuse':
      return [{ error: { status: 401, message: 'Incorrect API key provided: k.', type: 'invalid_request_error', code: 'invalid_api_key' } }];
  }
}

let home: Promise<string> | undefined;
afterAll(async () => {
  if (home) await rm(await home, { recursive: true, force: true });
});

// max-turns, failure-as-data and budget run in test/backend-opencode.test.ts on the same kind of script with stricter
// assertions (stopped at 2 turns; reason auth for the 401; killed at the step that crosses, 54,000 tokens counted
// field by field, at most 4 requests), so they are not paid twice at ~5 s of CPU per opencode start.
describeAgentBackendConformance('opencode (real CLI, fake OpenAI-compatible API)', async ({ script, root }) => {
  const server = await startFakeOpenAIServer(openCodeSteps(script));
  const backend = createOpenCodeBackend({
    binary: OPENCODE,
    home: await (home ??= mkdtemp(path.join(tmpdir(), 'loop-conformance-opencode-home-'))),
    model: FAKE_OPENCODE_MODEL,
    provider: fakeOpenCodeProvider(server.url),
    projectRoot: root,
    timeoutMs: 600_000,
    killGraceMs: 500,
  });
  return { backend, modelCalls: () => server.requests.length, modelRequests: () => server.requests.map((request) => JSON.stringify(request.body)), close: () => server.close() };
}, { cases: ['roles', 'read-only', 'abort', 'untrusted-input'], roles: ['implement', 'check'], timeoutMs: 600_000 });
