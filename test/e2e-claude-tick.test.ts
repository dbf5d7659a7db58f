/**
 * End to end: a full L2 tick through the built CLI with the REAL `claude`
 * binary against a local fake Anthropic Messages API. Triage picks an item,
 * Claude's own Edit tool fixes a failing test in a git worktree, the
 * verifier runs `node --test` in bubblewrap, the checker approves, the gate
 * allows and a commit with the loop trailers lands on a loop/ branch. The
 * user's working tree never changes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeAnthropicServer, text, toolUse, type AnthropicStep } from './fakes/fake-anthropic-server.js';
import { ADD_BUG_TRIAGE, BUGGY_ADD_PROJECT, CLAUDE, git, makeLoopRepo, NO_NETWORK_PROBE, readText, runCli, runLogLines, spendEntries, worktreeOf } from './e2e-fixtures.js';
import { cleanupTempDirs, fingerprint } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await cleanupTempDirs();
});

/** Triage, then an implementer that reads `file` and replaces `from` with `to`, then an approving checker. */
function script(file: string, from: string, to: string, summary: string): AnthropicStep[] {
  return [
    text(ADD_BUG_TRIAGE, { input: 1200, output: 80 }),
    (request) => toolUse('Read', { file_path: join(worktreeOf(request), file) }, { input: 1500, output: 30 }),
    (request) => toolUse('Edit', { file_path: join(worktreeOf(request), file), old_string: from, new_string: to }, { input: 1700, output: 40 }),
    text(summary, { input: 1800, output: 20 }),
    text('The diff is minimal and the tests pass.\n## Verdict: APPROVE\n- minimal change', { input: 900, output: 25 }),
  ];
}

async function setup(steps: AnthropicStep[]) {
  const server = await startFakeAnthropicServer(steps);
  cleanups.push(() => server.close());
  const home = await mkdtemp(join(tmpdir(), 'loop-e2e-claude-home-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const port = new URL(server.url).port;
  const repo = await makeLoopRepo(
    { ...BUGGY_ADD_PROJECT, 'scripts/no-network.mjs': NO_NETWORK_PROBE },
    {
      backend: 'claude-code',
      verify: ['node --test test/', `node scripts/no-network.mjs ${port}`],
      backendOptions: { binary: CLAUDE, home, maxRetries: 0, maxTurns: 8, timeoutMs: 600_000, killGraceMs: 500 },
    },
  );
  const env = {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  return { server, repo, env };
}

interface TickJson {
  tickId: string;
  kind: string;
  tokens: number;
  reasons?: string[];
  verification: { verdict: string; reasons: string[]; evidence: Array<{ command: string; exitCode: number; output: string }> };
  commit?: { sha: string; branch: string };
  gate?: { allowed: boolean };
}

describe('a full tick with the real claude binary (fake Anthropic API)', () => {
  it('fixes a failing test in a worktree, verifies in bwrap, and commits with loop trailers', async () => {
    const { server, repo, env } = await setup(script('src/add.mjs', 'a - b', 'a + b', 'Made add() add.'));
    const userTree = await fingerprint(repo);
    const head = git(repo, 'rev-parse', 'HEAD').trim();

    const result = await runCli(repo, ['run', 'daily-triage', '--backend', 'claude-code', '--level', 'L2', '--json'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = cliJson(result.stdout) as { backend: string; ticks: TickJson[]; budget: { spentToday: number } };
    expect(summary.backend).toBe('claude-code');
    const tick = summary.ticks[0]!;
    expect(tick.kind).toBe('proposed');

    // Five model calls: triage, three implementer turns (Read, Edit, summary), the checker.
    const requests = server.messageRequests();
    expect(requests).toHaveLength(5);
    const implementerTools = (requests[1]!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(implementerTools).toContain('Edit');
    // The implementer runs inside the agent sandbox, so it gets its shell there.
    expect(implementerTools).toContain('Bash');
    expect((requests[4]!.body.tools as Array<{ name: string }>).map((tool) => tool.name)).not.toContain('Edit');
    // Claude really ran the Read tool and sent the file back.
    expect(JSON.stringify(requests[2]!.body.messages)).toContain('a - b');

    // The verifier ran both commands itself, after the edit, with no network: the sandbox.
    const evidence = tick.verification.evidence;
    expect(evidence.map((entry) => [entry.command, entry.exitCode])).toEqual([
      ['node --test test/', 0],
      [expect.stringContaining('no-network.mjs'), 0],
    ]);
    expect(evidence[0]!.output).toMatch(/# pass 1/);
    expect(evidence[1]!.output).toContain('network blocked');
    expect(tick.verification.verdict).toBe('APPROVE');
    expect(tick.gate?.allowed).toBe(true);

    // A real commit on a loop/ branch, with the fix and the trailers.
    const branch = tick.commit!.branch;
    expect(branch).toMatch(/^loop\/daily-triage\//);
    expect(git(repo, 'rev-parse', branch).trim()).toBe(tick.commit!.sha);
    expect(git(repo, 'show', `${branch}:src/add.mjs`)).toBe('export const add = (a, b) => a + b;\n');
    expect(git(repo, 'rev-parse', `${branch}~1`).trim()).toBe(head);
    const message = git(repo, 'log', '-1', '--format=%B', branch);
    // The subject says what changed (the implementer's summary); the item's title is quoted in the body as data.
    expect(message.split('\n')[0]).toBe('daily-triage: Made add() add.');
    expect(message).toContain('reported as `add() subtracts instead of adding`');
    expect(message).toContain('What: Made add() add.');
    expect(message).toMatch(/^Loop-Pattern: daily-triage$/m);
    expect(message).toMatch(new RegExp(`^Loop-Tick: ${tick.tickId}$`, 'm'));
    const trailerTokens = Number(/^Loop-Tokens: (\d+)$/m.exec(message)?.[1]);
    expect(trailerTokens).toBeGreaterThan(0);
    expect(trailerTokens).toBeLessThanOrEqual(tick.tokens);

    // State file, run log and spend journal record the tick.
    expect(await readText(repo, 'STATE.md')).toContain('bug#1');
    const logged = await runLogLines(repo);
    expect(logged).toEqual([expect.objectContaining({ tick_id: tick.tickId, outcome: 'fix-proposed', kind: 'proposed', tokens_estimate: tick.tokens })]);
    const spend = await spendEntries(repo);
    expect(spend.map((entry) => entry.phase)).toEqual(['triage', 'implement', 'check']);
    expect(spend.every((entry) => entry.tickId === tick.tickId)).toBe(true);
    expect(spend.reduce((sum, entry) => sum + entry.tokens, 0)).toBe(tick.tokens);
    expect(summary.budget.spentToday).toBe(tick.tokens);

    // The user's checkout: same HEAD, same branch, same source files.
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(git(repo, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
    expect(await readText(repo, 'src/add.mjs')).toBe(BUGGY_ADD_PROJECT['src/add.mjs']);
    const after = await fingerprint(repo);
    for (const [path, hash] of userTree) {
      if (path.startsWith('.git/')) continue;
      expect(after.get(path), path).toBe(hash);
    }
    expect(git(repo, 'status', '--porcelain', '--untracked-files=no').trim()).toBe('');
  });

  it('rejects an implementer that "fixes" the test by skipping it, although the command passes and the checker approves', async () => {
    const { repo, env } = await setup(script('test/add.test.mjs', "test('adds two numbers'", "test.skip('adds two numbers'", 'Made the suite green.'));
    const result = await runCli(repo, ['run', 'daily-triage', '--backend', 'claude-code', '--level', 'L2', '--json'], env);
    expect(result.code).toBe(0);
    const tick = (cliJson(result.stdout) as { ticks: Array<TickJson & { reasons: string[] }> }).ticks[0]!;
    expect(tick.kind).toBe('rejected');
    // The command passed (the test was skipped) and the checker said APPROVE…
    expect(tick.verification.evidence[0]).toMatchObject({ command: 'node --test test/', exitCode: 0 });
    expect(tick.verification.evidence[0]!.output).toMatch(/# skipped 1/);
    // …but the diff integrity check lowers the verdict.
    expect(tick.verification.verdict).toBe('REJECT');
    expect(tick.reasons.join('\n')).toMatch(/skip-marker-added test\/add\.test\.mjs/);
    expect(tick.commit).toBeUndefined();
    expect(git(repo, 'branch', '--list', 'loop/*').trim()).toBe('');
    const ledger = JSON.parse(await readText(repo, 'loop-ledger.json')) as { attempts: Array<{ outcome: string; item: string; error?: string }> };
    expect(ledger.attempts).toEqual([expect.objectContaining({ outcome: 'failure', item: 'bug#1', error: expect.stringContaining('skip-marker-added') })]);
    expect(await readText(repo, 'test/add.test.mjs')).toBe(BUGGY_ADD_PROJECT['test/add.test.mjs']);
  });
});
