/**
 * The Delivery conformance suite against the memory twin and the real
 * adapter (a temporary repository, a bare remote, GitHub's REST API faked on
 * 127.0.0.1 and reached through Octokit).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { GitDelivery } from '../../src/adapters/delivery/git-delivery.js';
import { MemoryDelivery, MemoryDeliveryStore } from '../../src/adapters/delivery/memory-delivery.js';
import { buildPlan } from '../../src/core/plan/build-plan.js';
import type { DeliveryRequest } from '../../src/core/ports/index.js';
import { FixedClock } from '../../src/testing/fixed-clock.js';
import { describeDeliveryConformance, type DeliveryHarness } from '../../src/testing/conformance/index.js';
import { committedRequest } from '../delivery-fixtures.js';
import { startFakeGitHub } from '../fakes/fake-github-server.js';
import { dailyTriagePattern } from '../fixtures/patterns.js';
import { addBareRemote, cleanupTempDirs, makeRepo, sh } from '../git-fixtures.js';

afterAll(cleanupTempDirs);

const { cost: _cost, week_one_mode: _level, ...pattern } = dailyTriagePattern;
const PENDING_TIMEOUT_MS = 35 * 60_000;
const planFor = (maxOpenPullRequests = 5) => buildPlan(pattern, { level: 'L2', overrides: { delivery: { mode: 'pull-request', maxOpenPullRequests } } });

describeDeliveryConformance('MemoryDelivery', async (): Promise<DeliveryHarness> => {
  const store = new MemoryDeliveryStore();
  const clock = new FixedClock('2026-05-01T10:00:00Z', 1000);
  const commits = new Map<string, string>();
  let count = 0;
  const plan = planFor();
  return {
    pendingTimeoutMs: PENDING_TIMEOUT_MS,
    branchPrefix: plan.delivery.branchPrefix,
    advance: (ms) => clock.advance(ms),
    open: (options = {}) =>
      new MemoryDelivery({ delivery: planFor(options.maxOpenPullRequests).delivery, clock, store, pendingTimeoutMs: PENDING_TIMEOUT_MS, ...(options.beforePush ? { beforePush: options.beforePush } : {}) }),
    async request(itemKey): Promise<DeliveryRequest> {
      count += 1;
      const branch = `${plan.delivery.branchPrefix}${count}`;
      const sha = `${count}`.padStart(40, '0');
      commits.set(branch, sha);
      return {
        handle: { id: `w${count}`, path: '/memory', branch, baseCommit: 'b'.repeat(40), itemKey },
        commit: { sha, branch },
        patternId: plan.pattern.id,
        itemKey,
        dedupeKey: `${plan.pattern.id}:${itemKey}`,
        title: `Fix ${itemKey}`,
        body: 'evidence',
        merge: false,
      };
    },
    async pushToRemote(branch) {
      store.branches.set(branch, commits.get(branch)!);
    },
    async openPullRequest(head) {
      store.openPullRequest({ head, base: 'main', title: `opened by someone else: ${head}`, body: '', draft: false });
    },
    async breakRemote() {
      store.unreachable = true;
    },
    async failNextPullRequest(options) {
      store.failNextCreate = options;
    },
    remoteBranches: async () => [...store.branches.keys()],
    pullRequests: async () => store.pullRequests.map((pull) => ({ head: pull.head, url: pull.url })),
    async writeLedger(text) {
      store.ledgerText = text;
    },
  };
});

describeDeliveryConformance('GitDelivery (temporary repository, bare remote, GitHub REST fake via Octokit)', async (): Promise<DeliveryHarness> => {
  const github = await startFakeGitHub('acme/demo');
  const root = await makeRepo();
  const bare = await addBareRemote(root);
  const clock = new FixedClock('2026-05-01T10:00:00Z', 1000);
  const plan = planFor();
  const env = { PATH: '/nonexistent', GITHUB_TOKEN: 'test-token', GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/demo' };
  return {
    pendingTimeoutMs: PENDING_TIMEOUT_MS,
    branchPrefix: plan.delivery.branchPrefix,
    advance: (ms) => clock.advance(ms),
    open: (options = {}) =>
      new GitDelivery({ root, delivery: planFor(options.maxOpenPullRequests).delivery, clock, env, pendingTimeoutMs: PENDING_TIMEOUT_MS, ...(options.beforePush ? { beforePush: options.beforePush } : {}) }),
    request: (itemKey) => committedRequest(root, plan, clock, itemKey),
    async pushToRemote(branch) {
      sh(root, ['push', '--quiet', 'origin', `refs/heads/${branch}:refs/heads/${branch}`]);
    },
    async openPullRequest(head) {
      github.seed([head]);
    },
    async breakRemote() {
      sh(root, ['remote', 'set-url', 'origin', join(bare, 'missing.git')]);
      await github.close();
    },
    async failNextPullRequest(options) {
      github.failNextCreate(500, { created: options.opened });
    },
    remoteBranches: async () => sh(bare, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/']).split('\n').filter(Boolean),
    pullRequests: async () => github.pulls.map((pull) => ({ head: pull.head, url: github.htmlUrl(pull.number) })),
    async writeLedger(text) {
      await mkdir(join(root, '.loop-runtime'), { recursive: true });
      await writeFile(join(root, '.loop-runtime', 'deliveries.json'), text);
    },
    close: () => github.close(),
  };
});
