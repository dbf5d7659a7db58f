import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { octokitClient } from '../src/adapters/delivery/delivery-github-octokit.js';
import { GitDelivery } from '../src/adapters/delivery/git-delivery.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import type { Pattern } from '../src/core/config/schemas.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { committedRequest } from './delivery-fixtures.js';
import { startFakeGitHub, type FakeGitHub } from './fakes/fake-github-server.js';
import { addBareRemote, cleanupTempDirs, makeRepo } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const pattern = { id: 'ci-sweeper', name: 'CI Sweeper', file: 'ci-sweeper.md', goal: 'Keep CI green by fixing failures', cadence: '6h', risk: 'low', tools: ['claude-code'], skills: ['x'], state: 'STATE.md', phases: ['a', 'b'], human_gates: ['x'] } as Pattern;

let github: FakeGitHub | null = null;
afterEach(async () => {
  await github?.close();
  github = null;
});

async function setup(maxOpenPullRequests = 5) {
  github = await startFakeGitHub('acme/demo');
  const root = await makeRepo();
  await addBareRemote(root);
  const clock = new FixedClock('2026-05-01T10:00:00Z', 1000);
  const plan = buildPlan(pattern, { level: 'L3', overrides: { delivery: { mode: 'pull-request', maxOpenPullRequests } } });
  const env = { PATH: '/nonexistent', GITHUB_TOKEN: 'test-token', GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/demo' };
  const delivery = new GitDelivery({ root, delivery: plan.delivery, clock, env });
  return { github, root, clock, plan, env, delivery };
}

const loopHeads = (count: number) => Array.from({ length: count }, (_, index) => `loop/ci-sweeper/other-${index}`);
const otherHeads = (count: number) => Array.from({ length: count }, (_, index) => `feature/x-${index}`);

describe('GitDelivery over the REST API through Octokit (no gh on PATH)', () => {
  it('opens a pull request with the token and merges only when asked', async () => {
    const { github, root, clock, plan, delivery } = await setup();
    github.seed(['loop/ci-sweeper/other', 'feature/x']);
    const request = await committedRequest(root, plan, clock, 'ci#1', true);
    const result = await delivery.deliver(request);
    expect(result).toEqual({ ok: true, kind: 'merged', branch: request.handle.branch, url: github.htmlUrl(3) });
    const calls = github.requests.map((call) => `${call.method} ${call.url}`);
    expect(calls).toEqual(['GET /repos/acme/demo/pulls?state=open&per_page=100', 'POST /repos/acme/demo/pulls', 'PUT /repos/acme/demo/pulls/3/merge']);
    expect(github.requests.every((call) => call.headers.authorization === 'token test-token')).toBe(true);
    expect(github.requests[1]!.body).toEqual({ head: request.handle.branch, base: 'main', title: 'CI Sweeper: Fix ci#1', body: 'evidence', draft: false });
    expect(github.requests[2]!.body).toEqual({ merge_method: 'squash' });
  });

  it('counts open pull requests on every page (Link rel="next"), not just the first 100', async () => {
    const { github } = await setup();
    // Oldest first: the fake lists newest first, so the 130 loop PRs start on page 2 of 3.
    github.seed(loopHeads(130));
    github.seed(otherHeads(120));
    github.seed(['loop/ci-sweeper/closed'], 'closed');
    const client = octokitClient('test-token', { root: '.', env: { GITHUB_API_URL: github.url }, repository: 'acme/demo' });
    expect(await client.countOpen('loop/ci-sweeper/')).toBe(130);
    expect(github.requests.map((call) => call.url)).toEqual([
      '/repos/acme/demo/pulls?state=open&per_page=100',
      '/repos/acme/demo/pulls?state=open&per_page=100&page=2',
      '/repos/acme/demo/pulls?state=open&per_page=100&page=3',
    ]);
  });

  it('holds the open-PR cap when the loop pull requests are past the first page', async () => {
    const { github, root, clock, plan, delivery } = await setup(5);
    github.seed(loopHeads(5));
    github.seed(otherHeads(100));
    const request = await committedRequest(root, plan, clock, 'ci#2');
    const result = await delivery.deliver(request);
    expect(result).toMatchObject({ ok: false, reason: 'rate-limited', detail: { open: 5 } });
    if (result.ok) return;
    expect(result.message).toMatch(/already has 5 open loop pull request\(s\) \(cap 5\)/);
    expect(github.requests.filter((call) => call.method === 'POST')).toHaveLength(0);
  });

  it('opens the pull request when the same count is under the cap (the twin of the capped case)', async () => {
    const { github, root, clock, plan, delivery } = await setup(6);
    github.seed(loopHeads(5));
    github.seed(otherHeads(100));
    const request = await committedRequest(root, plan, clock, 'ci#3');
    const result = await delivery.deliver(request);
    expect(result).toEqual({ ok: true, kind: 'pull-request', branch: request.handle.branch, url: github.htmlUrl(106) });
  });

  it('reports a refused pull request as data with the HTTP status, and never as delivered', async () => {
    const { github, root, clock, plan, delivery } = await setup();
    const request = await committedRequest(root, plan, clock, 'ci#4');
    github.seed([request.handle.branch]); // GitHub answers 422: a PR for this head exists
    const result = await delivery.deliver(request);
    expect(result).toMatchObject({ ok: false, reason: 'api', retryable: false, detail: { status: 422 } });
  });
});
