/**
 * End to end, in process: `loadProject` → `resolvePlan` → `createLoopRuntime`
 * with the REAL opencode and gemini CLIs (built by their own createBackend)
 * against local fakes of their model APIs. Triage picks the item, the CLI's
 * own read and edit tools fix a failing test in the git worktree, the verifier
 * runs it in bubblewrap, the checker approves and a commit with the loop
 * trailers lands; a scripted cheat (a skip marker) is rejected by the gate.
 */
import { afterAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { createBackend as createGeminiBackend } from '../backends/gemini-cli/index.js';
import { createBackend as createOpenCodeBackend } from '../backends/opencode/index.js';
import type { AgentBackend } from '../src/core/ports/index.js';
import { loadProject, resolvePlan } from '../src/project/load-project.js';
import { createLoopRuntime } from '../src/composition/create-runtime.js';
import { BUGGY_ADD_PROJECT, git, makeLoopRepo, readText, spendEntries } from './e2e-fixtures.js';
import { geminiCall, geminiText, startFakeGeminiServer, type GeminiStep } from './fakes/fake-gemini-server.js';
import { startFakeOpenAIServer, type OpenAIStep } from './fakes/fake-openai-server.js';
import type { RecordedRequest } from './fakes/http-fake.js';
import { FAKE_OPENCODE_MODEL, fakeOpenCodeProvider } from './fakes/opencode-provider.js';
import { cleanupTempDirs } from './git-fixtures.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await cleanupTempDirs();
});

const TRIAGE = JSON.stringify({
  decision: 'act',
  summary: 'add() subtracts; its test fails.',
  findings: [{ severity: 'high', summary: 'add() returns a - b', itemKey: 'bug#3' }],
  items: [{ key: 'bug#3', title: 'add() subtracts instead of adding', paths: ['src/add.mjs'] }],
});
const APPROVE = 'The diff is minimal and the tests pass.\n## Verdict: APPROVE\n- minimal change';

/** The worktree, read from the "Workspace: <path> (branch …)" line of our own prompt. */
function worktreeOf(request: RecordedRequest): string {
  const match = /Workspace: (\/\S+) \(branch/.exec(JSON.stringify(request.body));
  if (!match?.[1]) throw new Error('the implementer request names no workspace');
  return match[1];
}

interface Edit { file: string; from: string; to: string; summary: string }

function openCodeScript(edit: Edit): OpenAIStep[] {
  const file = (request: RecordedRequest) => path.join(worktreeOf(request), edit.file);
  return [
    { text: TRIAGE, usage: { input: 1200, output: 80 } },
    (request) => ({ toolCalls: [{ name: 'read', arguments: { filePath: file(request) } }], usage: { input: 1500, output: 30 } }),
    (request) => ({ toolCalls: [{ name: 'edit', arguments: { filePath: file(request), oldString: edit.from, newString: edit.to } }], usage: { input: 1700, output: 40 } }),
    { text: edit.summary, usage: { input: 1800, output: 20 } },
    { text: APPROVE, usage: { input: 900, output: 25 } },
  ];
}

function geminiScript(edit: Edit): GeminiStep[] {
  const file = (request: RecordedRequest) => path.join(worktreeOf(request), edit.file);
  return [
    geminiText(TRIAGE, { input: 1200, output: 80 }),
    (request) => geminiCall('read_file', { file_path: file(request) }, { input: 1500, output: 30 }),
    (request) => geminiCall('replace', { file_path: file(request), old_string: edit.from, new_string: edit.to, instruction: 'fix' }, { input: 1700, output: 40 }),
    geminiText(edit.summary, { input: 1800, output: 20 }),
    geminiText(APPROVE, { input: 900, output: 25 }),
  ];
}

async function backendFor(name: 'opencode' | 'gemini-cli', edit: Edit, root: string): Promise<AgentBackend> {
  if (name === 'opencode') {
    const server = await startFakeOpenAIServer(openCodeScript(edit));
    cleanups.push(() => server.close());
    return createOpenCodeBackend({ binary: path.resolve('node_modules/.bin/opencode'), model: FAKE_OPENCODE_MODEL, provider: fakeOpenCodeProvider(server.url), timeoutMs: 600_000 }, { root });
  }
  const server = await startFakeGeminiServer(geminiScript(edit));
  cleanups.push(() => server.close());
  return createGeminiBackend({ binary: path.resolve('node_modules/.bin/gemini'), timeoutMs: 600_000, env: { GEMINI_API_KEY: 'dummy', GOOGLE_GEMINI_BASE_URL: server.url } }, { root });
}

async function tick(name: 'opencode' | 'gemini-cli', edit: Edit) {
  const repo = await makeLoopRepo(BUGGY_ADD_PROJECT, { backend: 'mock', verify: ['node --test test/'] });
  const loaded = await loadProject(repo);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const resolved = await resolvePlan(loaded.project, 'daily-triage', { level: 'L2' });
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  const backend = await backendFor(name, edit, repo);
  const runtime = await createLoopRuntime(loaded.project, resolved.plan, { dryRun: false, env: { PATH: process.env.PATH }, backend });
  expect(runtime.ports.commands?.isolation).toBe('bwrap');
  try {
    return { repo, result: await runtime.engine.tick() };
  } finally {
    await runtime.close();
  }
}

for (const name of ['opencode', 'gemini-cli'] as const) {
  describe(`a full tick with the real ${name} CLI (fake model API)`, () => {
    it('fixes a failing test with the CLI\'s own tools, verifies in bwrap and commits with trailers', async () => {
      const { repo, result } = await tick(name, { file: 'src/add.mjs', from: 'a - b', to: 'a + b', summary: 'Made add() add.' });
      expect(result.kind).toBe('proposed');
      if (result.kind !== 'proposed') return;
      expect(result.verification.verdict).toBe('APPROVE');
      expect(result.verification.evidence).toEqual([expect.objectContaining({ command: 'node --test test/', exitCode: 0 })]);
      expect(result.changes.map((change) => change.path)).toEqual(['src/add.mjs']);
      expect(git(repo, 'show', `${result.commit.branch}:src/add.mjs`)).toBe('export const add = (a, b) => a + b;\n');
      const message = git(repo, 'log', '-1', '--format=%B', result.commit.branch);
      expect(message).toMatch(/^Loop-Pattern: daily-triage$/m);
      expect(message).toMatch(new RegExp(`^Loop-Tick: ${result.tickId}$`, 'm'));
      const spend = await spendEntries(repo);
      expect(spend.map((entry) => [entry.phase, entry.tokens])).toEqual([
        ['triage', 1280],
        ['implement', 1500 + 30 + 1700 + 40 + 1800 + 20],
        ['check', 925],
      ]);
      expect(await readText(repo, 'src/add.mjs')).toBe(BUGGY_ADD_PROJECT['src/add.mjs']);
    });

    // The cheat is the same for every CLI (the gate reads git's diff, not the agent): run it once, on the faster CLI,
    // to keep the suite's time down — opencode starts in ~5-15 s per call on a loaded machine.
    it.skipIf(name === 'opencode')('rejects an implementer that skips the failing test, although the command passes and the checker approves', async () => {
      const { repo, result } = await tick(name, { file: 'test/add.test.mjs', from: "test('adds two numbers'", to: "test.skip('adds two numbers'", summary: 'Made the suite green.' });
      expect(result.kind).toBe('rejected');
      if (result.kind !== 'rejected') return;
      expect(result.verification?.verdict).toBe('REJECT');
      expect(result.reasons.join('\n')).toMatch(/skip-marker-added test\/add\.test\.mjs/);
      expect(git(repo, 'branch', '--list', 'loop/*').trim()).toBe('');
    });
  });
}
