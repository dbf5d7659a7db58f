/**
 * The overshoot bench's measuring side (run by scripts/bench-overshoot.js under vite-node, since the fakes are
 * TypeScript): each CLI backend's real binary against its local fake, with a model that never stops, and a
 * 5,000-token reservation on the call. The backend's meter kills the process group when the call reaches the
 * reservation; what is measured is the tokens it reports as spent past the reservation (3 runs each).
 *
 * - claude (node_modules/.bin/claude) against the fake Messages API: a model that keeps calling Glob, 1,500
 *   tokens a step (Anthropic reports a message's usage at message_start and message_delta only, so a runaway is
 *   seen step by step).
 * - opencode (opencode-ai's native binary) against the fake OpenAI-compatible API: the same tool-calling
 *   runaway, 1,500 tokens a step (opencode reports usage once per finished step).
 * - gemini (@google/gemini-cli) against the fake Gemini API through the backend's usage meter: one streamed
 *   reply that never ends, 2,000 input tokens and 500 more output tokens every chunk.
 *
 * Each backend runs with an isolated home, retries off, nothing leaving 127.0.0.1. A backend whose binary is
 * missing is reported as skipped. Prints one JSON object on its last line.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClaudeCodeBackend } from '../backends/claude-code/index.js';
import { createGeminiCliBackend } from '../backends/gemini-cli/index.js';
import { createOpenCodeBackend } from '../backends/opencode/index.js';
import { totalTokens, type AgentBackend } from '../src/core/ports/index.js';
import { agentRequest, tempWorkspace } from '../test/fakes/agent-request.js';
import { startFakeAnthropicServer, toolUse } from '../test/fakes/fake-anthropic-server.js';
import { startFakeGeminiServer } from '../test/fakes/fake-gemini-server.js';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { FAKE_OPENCODE_MODEL, fakeOpenCodeProvider } from '../test/fakes/opencode-provider.js';

const RESERVATION = 5_000;
const RUNS = 3;
/** More steps than any run reaches: the model never answers. */
const FOREVER = 40;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

interface Harness {
  backend: AgentBackend;
  close: () => Promise<unknown>;
}

type Setup = (workspace: string, home: string) => Promise<Harness>;

const BACKENDS: { name: string; binary: string; setup: Setup }[] = [
  {
    name: 'claude',
    binary: bin('claude'),
    setup: async (_workspace, home) => {
      const steps = Array.from({ length: FOREVER }, (_, index) => toolUse('Glob', { pattern: `*${index}` }, { input: 1_200, output: 300 }));
      const server = await startFakeAnthropicServer(steps);
      const backend = createClaudeCodeBackend({
        binary: bin('claude'), home, inheritEnv: false, maxRetries: 0, maxTurns: FOREVER, timeoutMs: 60_000, killGraceMs: 500,
        env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'dummy', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      });
      return { backend, close: () => server.close() };
    },
  },
  {
    name: 'opencode',
    binary: bin('opencode'),
    setup: async (workspace, home) => {
      const steps = Array.from({ length: FOREVER }, (_, index) => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `*${index}` } }], usage: { input: 1_200, output: 300 } }));
      const server = await startFakeOpenAIServer(steps);
      const backend = createOpenCodeBackend({
        binary: bin('opencode'), home, model: FAKE_OPENCODE_MODEL, provider: fakeOpenCodeProvider(server.url), projectRoot: workspace, timeoutMs: 90_000, killGraceMs: 500,
      });
      return { backend, close: () => server.close() };
    },
  },
  {
    name: 'gemini',
    binary: bin('gemini'),
    setup: async (workspace, home) => {
      const server = await startFakeGeminiServer([{ parts: [{ text: 'thinking…' }], usage: { input: 2_000 }, runawayOutputPerChunk: 500 }]);
      const backend = createGeminiCliBackend({
        binary: bin('gemini'), home, projectRoot: workspace, timeoutMs: 60_000, killGraceMs: 500, env: { GEMINI_API_KEY: 'dummy', GOOGLE_GEMINI_BASE_URL: server.url },
      });
      return { backend, close: () => server.close() };
    },
  },
];

export interface OvershootResult {
  backend: string;
  skipped?: string;
  reservation: number;
  runs: number[];
  medianOvershoot?: number;
}

async function measure(entry: (typeof BACKENDS)[number]): Promise<OvershootResult> {
  if (!existsSync(entry.binary)) return { backend: entry.name, skipped: `${path.relative(root, entry.binary)} is missing`, reservation: RESERVATION, runs: [] };
  const workspace = await tempWorkspace({ 'greet.txt': 'helo world\n', 'README.md': '# demo\n' }, { git: true });
  // One home per backend, shared by its runs: first-run setup is paid once, as in the conformance suites.
  const home = await mkdtemp(path.join(tmpdir(), `loop-bench-overshoot-${entry.name}-`));
  const runs: number[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      const harness = await entry.setup(workspace, home);
      try {
        const result = await harness.backend.run(agentRequest('check', workspace, { maxTokens: RESERVATION, maxTurns: FOREVER }));
        if (result.ok || result.reason !== 'budget') throw new Error(`${entry.name}: expected a budget kill, got ${JSON.stringify(result).slice(0, 300)}`);
        runs.push(totalTokens(result.usage) - RESERVATION);
      } finally {
        await harness.close();
      }
    }
  } finally {
    await rm(home, { recursive: true, force: true });
    await rm(workspace, { recursive: true, force: true });
  }
  const sorted = [...runs].sort((a, b) => a - b);
  return { backend: entry.name, reservation: RESERVATION, runs, medianOvershoot: sorted[Math.floor(sorted.length / 2)]! };
}

const only = process.argv.slice(2);
const results: OvershootResult[] = [];
for (const entry of BACKENDS) if (only.length === 0 || only.includes(entry.name)) results.push(await measure(entry));
console.log(JSON.stringify({ results }));
