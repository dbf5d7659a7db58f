/**
 * The Delivery conformance suite with the dedupe ledger in the fleet store
 * (a real private Postgres): the delivery protocol over PostgresDeliveryLedger,
 * remote and GitHub in memory.
 */
import { afterAll, beforeAll } from 'vitest';
import { MemoryDelivery, MemoryDeliveryStore } from '../../src/adapters/delivery/memory-delivery.js';
import { PostgresDatabase, PostgresDeliveryLedger } from '../../src/adapters/postgres/index.js';
import { buildPlan } from '../../src/core/plan/build-plan.js';
import type { DeliveryRequest } from '../../src/core/ports/index.js';
import { describeDeliveryConformance, type DeliveryHarness } from '../../src/testing/conformance/index.js';
import { FixedClock } from '../../src/testing/fixed-clock.js';
import { dailyTriagePattern } from '../fixtures/patterns.js';
import { startPgCluster, type PgCluster } from '../pg-cluster.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster();
});
afterAll(async () => cluster?.stop());

const { cost: _cost, week_one_mode: _level, ...pattern } = dailyTriagePattern;
const PENDING_TIMEOUT_MS = 35 * 60_000;
const planFor = (maxOpenPullRequests = 5) => buildPlan(pattern, { level: 'L2', overrides: { delivery: { mode: 'pull-request', maxOpenPullRequests } } });

describeDeliveryConformance('MemoryDelivery over PostgresDeliveryLedger', async (): Promise<DeliveryHarness> => {
  const database = await PostgresDatabase.open({ url: await cluster.createDatabase('delivery') });
  const store = new MemoryDeliveryStore();
  const clock = new FixedClock('2026-05-01T10:00:00Z', 1000);
  const commits = new Map<string, string>();
  let count = 0;
  const plan = planFor();
  // Each open() is a new ledger instance on the same rows, as another worker's would be.
  const ledger = () => new PostgresDeliveryLedger({ database, scope: 'acme/demo' });
  return {
    pendingTimeoutMs: PENDING_TIMEOUT_MS,
    branchPrefix: plan.delivery.branchPrefix,
    advance: (ms) => clock.advance(ms),
    open: (options = {}) =>
      new MemoryDelivery({
        delivery: planFor(options.maxOpenPullRequests).delivery,
        clock,
        store,
        ledger: ledger(),
        pendingTimeoutMs: PENDING_TIMEOUT_MS,
        ...(options.beforePush ? { beforePush: options.beforePush } : {}),
      }),
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
    writeLedger: (text) => ledger().write(text),
    close: () => database.close(),
  };
});
