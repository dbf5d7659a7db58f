/**
 * End to end, in process: `loadProject` → `resolvePlan` → `createLoopRuntime`
 * with the openai backend (the official SDK) against a local fake OpenAI
 * server. The implementer's tool calls go through the real tools: read_file
 * and edit_file in the git worktree, run_command through the runtime's
 * bubblewrap runner. The verifier runs the tests in bwrap, the checker
 * approves and a commit lands on a loop/ branch.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createLoopRuntime } from '../src/composition/create-runtime.js';
import { loadProject, resolvePlan } from '../src/project/load-project.js';
import { startFakeOpenAIServer } from './fakes/fake-openai-server.js';
import { BUGGY_ADD_PROJECT, git, makeLoopRepo, NO_NETWORK_PROBE, readText, runLogLines, spendEntries } from './e2e-fixtures.js';
import { cleanupTempDirs } from './git-fixtures.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await cleanupTempDirs();
});

const TRIAGE = {
  decision: 'act',
  summary: 'add() subtracts; its test fails.',
  findings: [{ severity: 'high', summary: 'add() returns a - b', itemKey: 'bug#2' }],
  items: [{ key: 'bug#2', title: 'add() subtracts instead of adding', paths: ['src/add.mjs'] }],
};

type Message = { role: string; content: string | null; tool_call_id?: string };

describe('a full tick with the openai backend (official SDK, fake server)', () => {
  it('reads, edits, runs commands in the sandbox, is verified in bwrap and commits', async () => {
    let port = 0;
    const server = await startFakeOpenAIServer([
      { toolCalls: [{ name: 'done', arguments: { result: JSON.stringify(TRIAGE) } }], usage: { input: 900, output: 60 } },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/add.mjs' } }], usage: { input: 1000, output: 10 } },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/add.mjs', old_string: 'a - b', new_string: 'a + b' } }], usage: { input: 1100, output: 20 } },
      { toolCalls: [{ name: 'run_command', arguments: { command: 'node --test test/' } }], usage: { input: 1200, output: 10 } },
      () => ({ toolCalls: [{ name: 'run_command', arguments: { command: `node scripts/no-network.mjs ${port}` } }], usage: { input: 1300, output: 10 } }),
      { toolCalls: [{ name: 'done', arguments: { result: 'Made add() add; node --test passes.' } }], usage: { input: 1400, output: 15 } },
      { text: 'Minimal and correct.\n## Verdict: APPROVE\n- one-character fix', usage: { input: 800, output: 20 } },
    ]);
    cleanups.push(() => server.close());
    port = Number(new URL(server.url).port);

    const repo = await makeLoopRepo(
      { ...BUGGY_ADD_PROJECT, 'scripts/no-network.mjs': NO_NETWORK_PROBE },
      { backend: 'openai', model: 'gpt-4o-mini', verify: ['node --test test/'], backendOptions: { baseURL: `${server.url}/v1`, apiKey: 'test-key' } },
    );
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const loaded = await loadProject(repo);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    const resolved = await resolvePlan(loaded.project, 'daily-triage', { level: 'L2' });
    if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
    expect(resolved.plan.backend).toMatchObject({ name: 'openai', model: 'gpt-4o-mini' });

    const runtime = await createLoopRuntime(loaded.project, resolved.plan, { dryRun: false, env: { PATH: process.env.PATH } });
    expect(runtime.ports.commands?.isolation).toBe('bwrap');
    let tick;
    try {
      tick = await runtime.engine.tick();
    } finally {
      await runtime.close();
    }
    expect(tick.kind).toBe('proposed');
    if (tick.kind !== 'proposed') return;

    // Seven model calls; the implementer had the write and command tools, the checker neither.
    expect(server.requests).toHaveLength(7);
    const tools = (index: number) => (server.requests[index]!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(tools(0)).toEqual(['read_file', 'list', 'glob', 'grep', 'done']);
    expect(tools(1)).toEqual(['read_file', 'list', 'glob', 'grep', 'write_file', 'edit_file', 'run_command', 'done']);
    expect(tools(6)).not.toContain('edit_file');
    // The tool results the model saw: the file, the passing test run and the blocked network, all from the worktree.
    const toolResults = (server.requests[5]!.body.messages as Message[]).filter((message) => message.role === 'tool').map((message) => message.content ?? '');
    expect(toolResults[0]).toContain('a - b');
    expect(toolResults[2]).toMatch(/^exit code 0\n[\s\S]*# pass 1/);
    expect(toolResults[3]).toMatch(/^exit code 0\nnetwork blocked/);

    // Verification: the engine's own run, after the last write.
    expect(tick.verification.verdict).toBe('APPROVE');
    expect(tick.verification.evidence).toEqual([expect.objectContaining({ command: 'node --test test/', exitCode: 0, timedOut: false })]);
    expect(tick.changes.map((change) => change.path)).toEqual(['src/add.mjs']);

    // The commit, its trailers, the records, and an untouched user checkout.
    expect(git(repo, 'show', `${tick.commit.branch}:src/add.mjs`)).toBe('export const add = (a, b) => a + b;\n');
    const message = git(repo, 'log', '-1', '--format=%B', tick.commit.branch);
    expect(message).toMatch(/^Loop-Pattern: daily-triage$/m);
    expect(message).toMatch(new RegExp(`^Loop-Tick: ${tick.tickId}$`, 'm'));
    expect(message).toContain('- `node --test test/` → exit 0');
    const spend = await spendEntries(repo);
    expect(spend.map((entry) => [entry.phase, entry.tokens])).toEqual([
      ['triage', 960],
      ['implement', 1000 + 10 + 1100 + 20 + 1200 + 10 + 1300 + 10 + 1400 + 15],
      ['check', 820],
    ]);
    expect(tick.tokens).toBe(spend.reduce((sum, entry) => sum + entry.tokens, 0));
    expect(await runLogLines(repo)).toEqual([expect.objectContaining({ tick_id: tick.tickId, outcome: 'fix-proposed' })]);
    expect(await readText(repo, 'src/add.mjs')).toBe(BUGGY_ADD_PROJECT['src/add.mjs']);
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(git(repo, 'status', '--porcelain', '--untracked-files=no').trim()).toBe('');
  });
});
