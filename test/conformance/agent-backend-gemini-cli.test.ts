/**
 * The AgentBackend contract for the REAL `gemini` CLI against a local fake
 * Gemini API, through the backend's usage meter. The harness only translates
 * the suite's model script into the fake's wire-level steps.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { createGeminiCliBackend } from '../../backends/gemini-cli/index.js';
import { describeAgentBackendConformance, type ModelScript } from '../../src/testing/conformance/index.js';
import { geminiCall, geminiErrors, geminiText, startFakeGeminiServer, type GeminiStep } from '../fakes/fake-gemini-server.js';

const GEMINI = path.resolve('node_modules/.bin/gemini');
const FOREVER = 40;

function geminiSteps(script: ModelScript): GeminiStep[] {
  const list = (index: number, usage?: { input: number; output: number }) => geminiCall('glob', { pattern: `*${index}` }, usage);
  switch (script.kind) {
    case 'answer':
      return [
        ...(script.write ? [geminiCall('write_file', { file_path: script.write.absolutePath, content: script.write.content })] : []),
        geminiText(script.text),
      ];
    case 'tools-forever':
      return Array.from({ length: FOREVER }, (_, index) => list(index));
    case 'expensive':
      return Array.from({ length: FOREVER }, (_, index) => list(index, { input: script.tokensPerCall - 1000, output: 1000 }));
    case 'refuse':
      return [geminiErrors.auth()];
  }
}

let home: Promise<string> | undefined;
afterAll(async () => {
  if (home) await rm(await home, { recursive: true, force: true });
});

describeAgentBackendConformance('gemini-cli (real CLI, fake Gemini API)', async ({ script, root }) => {
  const server = await startFakeGeminiServer(geminiSteps(script));
  const backend = createGeminiCliBackend({
    binary: GEMINI,
    home: await (home ??= mkdtemp(path.join(tmpdir(), 'loop-conformance-gemini-home-'))),
    projectRoot: root,
    timeoutMs: 600_000,
    killGraceMs: 500,
    env: { GEMINI_API_KEY: 'dummy', GOOGLE_GEMINI_BASE_URL: server.url },
  });
  return {
    backend,
    modelCalls: () => server.streamRequests().length,
    modelRequests: () => server.streamRequests().map((request) => JSON.stringify(request.body)),
    close: () => server.close(),
  };
}, { cases: ['roles', 'read-only', 'budget', 'max-turns', 'abort', 'failure-as-data', 'untrusted-input'], timeoutMs: 600_000 });
