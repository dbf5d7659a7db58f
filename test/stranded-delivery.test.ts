/**
 * Verified work whose delivery failed is never dropped: the tick says so, the
 * run log, STATE.md, `status` and `inbox` show it, and `loop-runtime deliver`
 * (or the loop's next tick) delivers exactly that commit — once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { startFakeGitHub, type FakeGitHub } from './fakes/fake-github-server.js';
import { addBareRemote, cleanupTempDirs, makeRepo, sh } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

let github: FakeGitHub | null = null;
afterEach(async () => {
  await github?.close();
  github = null;
});

async function cli(cwd: string, argv: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { cwd, env: { ...process.env, NO_COLOR: '1', CI: '', GITHUB_TOKEN: undefined, GH_TOKEN: undefined, ...env }, isTTY: false, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

const LOOP_MD = (delivery: string) => `---
loop-runtime:
  backend: mock
  verify:
    - "true"
  delivery:
    mode: ${delivery}
  loops:
    daily-triage: {}
---
# Loops
`;

const inboxItems = async (root: string, env: Record<string, string | undefined> = {}) => cliJson((await cli(root, ['inbox', '--json'], env)).stdout).items as Array<Record<string, unknown>>;

describe('a verified commit whose delivery failed', () => {
  it('push mode: an unreachable remote fails the tick as delivery-failed; inbox, status, run log and STATE.md show it; after the remote is fixed, deliver pushes exactly that commit and the inbox is empty', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('push') });
    const bare = await addBareRemote(root);
    sh(root, ['remote', 'set-url', 'origin', join(root, '..', 'no-such-remote.git')]);

    const run = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json']);
    expect(run.code).toBe(1);
    const tick = cliJson(run.stdout).ticks[0];
    expect(tick).toMatchObject({ kind: 'failed', phase: 'deliver', message: expect.stringMatching(/^verified, delivery failed: Could not push/) });
    const { commit, worktree } = tick.stranded as { commit: { sha: string; branch: string }; worktree: string };

    const items = await inboxItems(root);
    expect(items).toEqual([expect.objectContaining({ kind: 'delivery-failed', id: worktree, itemKey: 'mock#1', branch: commit.branch, commit: commit.sha, reason: expect.stringMatching(/^verified, delivery failed: Could not push/) })]);
    expect((await cli(root, ['inbox'])).stdout).toContain(`retry: loop-runtime deliver ${worktree}`);
    const status = cliJson((await cli(root, ['status', '--json'])).stdout);
    expect(status.loops[0].deliveryFailed).toEqual([expect.objectContaining({ id: worktree, itemKey: 'mock#1' })]);
    expect(await readFile(join(root, 'loop-run-log.md'), 'utf8')).toContain('"kind":"delivery-failed"');
    expect(await readFile(join(root, 'STATE.md'), 'utf8')).toMatch(/- \[ \] mock#1 — .*\n\s+Loop action: verified, delivery failed: Could not push/);

    // Still broken: the retry fails, the change stays listed.
    const again = await cli(root, ['deliver', worktree, '--json']);
    expect(again.code).toBe(1);
    expect(await inboxItems(root)).toHaveLength(1);

    sh(root, ['remote', 'set-url', 'origin', bare]);
    const delivered = await cli(root, ['deliver', worktree, '--json']);
    expect(delivered.code).toBe(0);
    expect(cliJson(delivered.stdout)).toMatchObject({ commit: commit.sha, delivery: { kind: 'pushed', branch: commit.branch } });
    expect(sh(bare, ['rev-parse', commit.branch]).trim()).toBe(commit.sha);
    expect(await inboxItems(root)).toEqual([]);
    expect(await readFile(join(root, 'STATE.md'), 'utf8')).toContain('- [x] mock#1');
    expect(await readFile(join(root, 'loop-run-log.md'), 'utf8')).toContain('"kind":"delivery-retried"');
    // Nothing waits under that id any more.
    expect((await cli(root, ['deliver', worktree])).code).toBe(3);
  });

  it("the loop's next tick delivers a stranded commit first (no model call for it), and does not work on the item again", async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('push') });
    const bare = await addBareRemote(root);
    sh(root, ['remote', 'set-url', 'origin', join(root, '..', 'no-such-remote.git')]);
    const failed = cliJson((await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'])).stdout).ticks[0];
    expect(failed.stranded).toBeDefined();

    sh(root, ['remote', 'set-url', 'origin', bare]);
    const next = cliJson((await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'])).stdout);
    expect(next.notes).toContain(`delivery retry of mock#1: pushed (${failed.stranded.commit.branch})`);
    expect(sh(bare, ['rev-parse', failed.stranded.commit.branch]).trim()).toBe(failed.stranded.commit.sha);
    // The pushed branch is the item's open proposal: the tick reports instead of running the implementer again.
    expect(next.ticks[0]).toMatchObject({ kind: 'report', degradedReason: expect.stringContaining('open proposal (mock#1)') });
    expect(next.ticks[0].steps.map((step: { phase: string }) => step.phase)).not.toContain('implement');
    expect(await inboxItems(root)).toEqual([]);
  });

  it('reject drops a verified change whose delivery failed: worktree, branch and record go, and the item may be proposed again', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('push') });
    await addBareRemote(root);
    sh(root, ['remote', 'set-url', 'origin', join(root, '..', 'no-such-remote.git')]);
    const tick = cliJson((await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'])).stdout).ticks[0];
    const rejected = await cli(root, ['reject', tick.stranded.worktree]);
    expect(rejected.code).toBe(0);
    expect(sh(root, ['branch', '--list', tick.stranded.commit.branch]).trim()).toBe('');
    expect(await inboxItems(root)).toEqual([]);
    expect(JSON.parse(await readFile(join(root, '.loop-runtime', 'deliveries.json'), 'utf8')).deliveries).toEqual([]);
    expect(await readFile(join(root, 'loop-run-log.md'), 'utf8')).toContain('"kind":"human-rejected"');
  });

  for (const created of [false, true]) {
    it(`pull-request mode: GitHub answers 500${created ? ' after opening the pull request' : ''}, then 201 — the retry leaves exactly one pull request`, async () => {
      github = await startFakeGitHub('acme/demo');
      const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('pull-request') });
      await addBareRemote(root);
      const env = { GITHUB_TOKEN: 'test-token', GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/demo' };
      github.failNextCreate(500, { created });

      const run = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env);
      expect(run.code).toBe(1);
      const tick = cliJson(run.stdout).ticks[0];
      expect(tick).toMatchObject({ kind: 'failed', phase: 'deliver', message: expect.stringContaining('HTTP 500') });
      const items = await inboxItems(root, env);
      expect(items).toEqual([expect.objectContaining({ kind: 'delivery-failed', reason: expect.stringContaining('HTTP 500') })]);

      const delivered = await cli(root, ['deliver', String(items[0]!.id), '--json'], env);
      expect(delivered.code).toBe(0);
      const result = cliJson(delivered.stdout);
      expect(result.delivery).toMatchObject({ kind: created ? 'duplicate' : 'pull-request', url: github.htmlUrl(1) });
      expect(github.pulls.map((pull) => pull.head)).toEqual([tick.stranded.commit.branch]);
      expect(github.requests.filter((request) => request.method === 'POST')).toHaveLength(created ? 1 : 2);
      expect(await inboxItems(root, env)).toEqual([]);
      const ledger = JSON.parse(await readFile(join(root, '.loop-runtime', 'deliveries.json'), 'utf8'));
      expect(ledger.deliveries).toEqual([expect.objectContaining({ key: 'daily-triage:mock#1', kind: 'pull-request', url: github.htmlUrl(1) })]);
      expect(ledger.deliveries[0].reason).toBeUndefined();
    });
  }
});
