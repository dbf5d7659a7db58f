/**
 * End to end: full L2 ticks through the built CLI with the REAL `codex`
 * binary against a local fake of the Responses API. Codex's own apply_patch
 * fixes a failing test in a git worktree, the verifier runs `node --test` in
 * bubblewrap, the checker approves and a commit with the loop trailers lands
 * on a loop/ branch; a skip-marker cheat is rejected; a 401 halts the loop
 * (exit 5). Needs `dist/` (`npx tsc -p tsconfig.build.json`).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeResponsesServer, type ResponsesStep } from './fakes/fake-responses-server.js';
import { ADD_BUG_TRIAGE, BUGGY_ADD_PROJECT, git, makeLoopRepo, NO_NETWORK_PROBE, PACKAGE_ROOT, readText, runCli, runLogLines, spendEntries } from './e2e-fixtures.js';
import { cleanupTempDirs, fingerprint } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

const CODEX = join(PACKAGE_ROOT, 'node_modules', '.bin', 'codex');
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await cleanupTempDirs();
});

/** Triage, then an implementer that patches `file` (`from` → `to`) and sums up, then an approving checker. */
function script(file: string, from: string, to: string, summary: string): ResponsesStep[] {
  return [
    { text: ADD_BUG_TRIAGE, usage: { input: 1200, output: 80 } },
    { patch: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch\n`, usage: { input: 1500, output: 60 } },
    { text: summary, usage: { input: 1700, output: 20 } },
    { text: 'The diff is minimal and the tests pass.\n## Verdict: APPROVE\n- minimal change', usage: { input: 900, output: 25 } },
  ];
}

async function setup(steps: ResponsesStep[]) {
  const server = await startFakeResponsesServer(steps);
  cleanups.push(() => server.close());
  const port = new URL(server.url).port;
  const repo = await makeLoopRepo(
    { ...BUGGY_ADD_PROJECT, 'scripts/no-network.mjs': NO_NETWORK_PROBE },
    {
      backend: 'codex',
      model: 'fake-codex',
      verify: ['node --test test/', `node scripts/no-network.mjs ${port}`],
      backendOptions: { binary: CODEX, baseUrl: `${server.url}/v1`, maxRetries: 0, timeoutMs: 600_000, killGraceMs: 500 },
    },
  );
  return { server, repo, env: { OPENAI_API_KEY: 'sk-e2e-test' } };
}

interface TickJson {
  tickId: string;
  kind: string;
  reason?: string;
  tokens: number;
  reasons?: string[];
  message?: string;
  verification: { verdict: string; reasons: string[]; evidence: Array<{ command: string; exitCode: number; output: string }> };
  commit?: { sha: string; branch: string };
  gate?: { allowed: boolean };
}

describe('a full tick with the real codex binary (fake Responses API)', () => {
  it('fixes a failing test with apply_patch in a worktree, verifies in bwrap, and commits with loop trailers', async () => {
    const { server, repo, env } = await setup(script('src/add.mjs', 'export const add = (a, b) => a - b;', 'export const add = (a, b) => a + b;', 'Made add() add.'));
    const userTree = await fingerprint(repo);
    const head = git(repo, 'rev-parse', 'HEAD').trim();

    const result = await runCli(repo, ['run', 'daily-triage', '--level', 'L2', '--json'], env, { timeoutMs: 600_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = cliJson(result.stdout) as { backend: string; backendReason: string; ticks: TickJson[]; budget: { spentToday: number } };
    expect(summary.backend).toBe('codex');
    expect(summary.backendReason).toContain('configured');
    const tick = summary.ticks[0]!;
    expect(tick.kind).toBe('proposed');

    // Four model calls: triage, the patch, the implementer's summary, the checker. Codex sent our tool result back.
    const requests = server.modelRequests();
    expect(requests).toHaveLength(4);
    expect(JSON.stringify(requests[2]!.body)).toMatch(/custom_tool_call_output|function_call_output/);

    const evidence = tick.verification.evidence;
    expect(evidence.map((entry) => [entry.command, entry.exitCode])).toEqual([
      ['node --test test/', 0],
      [expect.stringContaining('no-network.mjs'), 0],
    ]);
    expect(evidence[0]!.output).toMatch(/# pass 1/);
    expect(evidence[1]!.output).toContain('network blocked');
    expect(tick.verification.verdict).toBe('APPROVE');
    expect(tick.gate?.allowed).toBe(true);

    const branch = tick.commit!.branch;
    expect(branch).toMatch(/^loop\/daily-triage\//);
    expect(git(repo, 'show', `${branch}:src/add.mjs`)).toBe('export const add = (a, b) => a + b;\n');
    expect(git(repo, 'rev-parse', `${branch}~1`).trim()).toBe(head);
    const message = git(repo, 'log', '-1', '--format=%B', branch);
    expect(message).toMatch(/^Loop-Pattern: daily-triage$/m);
    expect(message).toMatch(new RegExp(`^Loop-Tick: ${tick.tickId}$`, 'm'));
    expect(Number(/^Loop-Tokens: (\d+)$/m.exec(message)?.[1])).toBeGreaterThan(0);

    expect(await runLogLines(repo)).toEqual([expect.objectContaining({ tick_id: tick.tickId, outcome: 'fix-proposed' })]);
    const spend = await spendEntries(repo);
    expect(spend.map((entry) => entry.phase)).toEqual(['triage', 'implement', 'check']);
    expect(spend.reduce((sum, entry) => sum + entry.tokens, 0)).toBe(tick.tokens);

    // The user's checkout is untouched.
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(await readText(repo, 'src/add.mjs')).toBe(BUGGY_ADD_PROJECT['src/add.mjs']);
    const after = await fingerprint(repo);
    for (const [path, hash] of userTree) {
      if (!path.startsWith('.git/')) expect(after.get(path), path).toBe(hash);
    }
  });

  it('rejects a patch that "fixes" the test by skipping it, although the command passes and the checker approves', async () => {
    const { repo, env } = await setup(script('test/add.test.mjs', "test('adds two numbers', () => {", "test.skip('adds two numbers', () => {", 'Made the suite green.'));
    const result = await runCli(repo, ['run', 'daily-triage', '--level', 'L2', '--json'], env, { timeoutMs: 600_000 });
    expect(result.code).toBe(0);
    const tick = (cliJson(result.stdout) as { ticks: TickJson[] }).ticks[0]!;
    expect(tick.kind).toBe('rejected');
    expect(tick.verification.evidence[0]).toMatchObject({ command: 'node --test test/', exitCode: 0 });
    expect(tick.verification.evidence[0]!.output).toMatch(/# skipped 1/);
    expect(tick.verification.verdict).toBe('REJECT');
    expect(tick.reasons!.join('\n')).toMatch(/skip-marker-added test\/add\.test\.mjs/);
    expect(tick.commit).toBeUndefined();
    expect(git(repo, 'branch', '--list', 'loop/*').trim()).toBe('');
  });

  it('an auth error (401) halts the loop: backend-stopped, exit 5, one model call, no retries', async () => {
    const { server, repo, env } = await setup([{ error: { status: 401, message: 'Incorrect API key provided: sk-e2***.', code: 'invalid_api_key' } }]);
    const result = await runCli(repo, ['run', 'daily-triage', '--level', 'L2', '--json'], env, { timeoutMs: 600_000 });
    expect(result.code).toBe(5);
    const tick = (cliJson(result.stdout) as { ticks: TickJson[] }).ticks[0]!;
    expect(tick).toMatchObject({ kind: 'halted', reason: 'backend-stopped' });
    expect(tick.message).toMatch(/OPENAI_API_KEY/);
    expect(server.modelRequests()).toHaveLength(1);
    expect(git(repo, 'branch', '--list', 'loop/*').trim()).toBe('');
  });
});
