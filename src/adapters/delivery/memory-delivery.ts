/**
 * The Delivery port in memory: the same protocol as `GitDelivery` (dedupe
 * ledger, reconciliation of crashed deliveries, pull-request caps) over a
 * `MemoryDeliveryStore` that stands in for deliveries.json, the remote and
 * GitHub. Instances sharing one store behave like processes sharing one
 * repository, so a test can crash one and start another.
 */
import type { Clock, Delivery, DeliveryFailure, DeliveryRequest, DeliveryResult } from '../../core/ports/index.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import { formatDeliveryLedger, openProposalItems, parseDeliveryLedger, type DeliveryLedger } from '../../core/workspace/delivery-ledger.js';
import { deliverThroughLedger, type BeforePushHook, type DeliveryLedgerStore } from './delivery-flow.js';
import type { FoundPullRequest, GitHubClient } from './delivery-github-types.js';

export interface MemoryPullRequest {
  number: number;
  url: string;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  state: FoundPullRequest['state'];
}

/** The durable world several `MemoryDelivery` instances share: the ledger file's text, the remote's branches, GitHub's pull requests. */
export class MemoryDeliveryStore {
  /** The text of deliveries.json (null: no file). Write garbage here to test a corrupt ledger. */
  ledgerText: string | null = null;
  /** Branch → commit on the remote. */
  readonly branches = new Map<string, string>();
  readonly pullRequests: MemoryPullRequest[] = [];
  /** Every push that reached the remote, in order. */
  readonly pushes: string[] = [];
  /** When true, the remote and GitHub cannot be reached. */
  unreachable = false;
  /** GitHub answers the next pull-request creation with HTTP 500 — after opening it when `opened` (fault injection). */
  failNextCreate: { opened: boolean } | null = null;

  constructor(readonly repository = 'acme/demo') {}

  /** Opens a pull request as GitHub would (also for seeding ones opened by someone else). */
  openPullRequest(fields: Omit<MemoryPullRequest, 'number' | 'url' | 'state'> & { state?: MemoryPullRequest['state'] }): MemoryPullRequest {
    const number = this.pullRequests.length + 1;
    const pull = { number, url: `https://github.com/${this.repository}/pull/${number}`, state: 'open' as const, ...fields };
    this.pullRequests.push(pull);
    return pull;
  }
}

export interface MemoryDeliveryOptions {
  delivery: Pick<ExecutionPlan['delivery'], 'mode' | 'draft' | 'maxOpenPullRequests' | 'maxPullRequestsPerHour' | 'branchPrefix' | 'baseBranch'>;
  clock: Clock;
  store?: MemoryDeliveryStore;
  /** Same meaning as GitDelivery's: the lease timeout. Default 35 minutes. */
  pendingTimeoutMs?: number;
  /** Fault injection: runs after the dedupe key is recorded, before the push. A throw is a crash. */
  beforePush?: BeforePushHook;
  /** Keeps the dedupe ledger here instead of in `store.ledgerText` (e.g. the fleet store). */
  ledger?: DeliveryLedgerStore;
}

const LEDGER_NAME = 'deliveries.json (in memory)';

/**
 * @example
 * ```ts
 * const store = new MemoryDeliveryStore();
 * const delivery = new MemoryDelivery({ delivery: plan.delivery, clock, store });
 * await delivery.deliver(request); // → { ok: true, kind: 'pull-request', branch, url: 'https://github.com/acme/demo/pull/1' }
 * store.pushes; // → [branch]
 * ```
 */
export class MemoryDelivery implements Delivery {
  readonly specificationVersion = 'delivery-v1' as const;
  readonly store: MemoryDeliveryStore;

  constructor(private readonly options: MemoryDeliveryOptions) {
    this.store = options.store ?? new MemoryDeliveryStore();
  }

  /** The item keys of `patternId` whose proposal the ledger still holds open (not known merged). */
  async openProposals(patternId: string): Promise<string[]> {
    const ledger = this.options.ledger
      ? await this.options.ledger.update((current) => ({ ledger: current, result: current }))
      : parseDeliveryLedger(this.store.ledgerText, LEDGER_NAME);
    return [...new Set(openProposalItems(ledger, patternId))];
  }

  async deliver(request: DeliveryRequest): Promise<DeliveryResult> {
    const settings = this.options.delivery;
    if (settings.mode === 'local') return { ok: true, kind: 'local', branch: request.handle.branch };
    const store = this.store;
    const unreachable = (): DeliveryFailure => ({ ok: false, reason: 'push', message: 'The remote cannot be reached (memory store marked unreachable).', retryable: true });
    return deliverThroughLedger(
      {
        settings: { ...settings, mode: settings.mode },
        clock: this.options.clock,
        pendingTimeoutMs: this.options.pendingTimeoutMs ?? 35 * 60_000,
        github: settings.mode === 'pull-request' ? memoryGitHub(store) : null,
        baseBranch: settings.baseBranch ?? 'main',
        updateLedger: async <T>(change: (ledger: DeliveryLedger) => { ledger: DeliveryLedger; result: T }) => {
          if (this.options.ledger) return this.options.ledger.update(change);
          const { ledger, result } = change(parseDeliveryLedger(store.ledgerText, LEDGER_NAME));
          store.ledgerText = formatDeliveryLedger(ledger);
          return result;
        },
        remoteBranch: async (branch) => (store.unreachable ? unreachable() : { ok: true, exists: store.branches.has(branch) }),
        push: async (pushed) => {
          if (store.unreachable) return unreachable();
          const branch = pushed.handle.branch;
          const current = store.branches.get(branch);
          if (current !== undefined && current !== pushed.commit.sha) {
            return { ok: false, reason: 'push', message: `Could not push ${branch}: the remote has a different ${branch} (never force-pushed).`, retryable: false };
          }
          store.branches.set(branch, pushed.commit.sha);
          store.pushes.push(branch);
          return { ok: true };
        },
        ...(this.options.beforePush ? { beforePush: this.options.beforePush } : {}),
      },
      request,
    );
  }
}

function memoryGitHub(store: MemoryDeliveryStore): GitHubClient {
  const unreachable = { ok: false as const, reason: 'api' as const, message: 'GitHub cannot be reached (memory store marked unreachable).', retryable: true };
  return {
    via: 'rest',
    async countOpen(prefix) {
      if (store.unreachable) return null;
      return store.pullRequests.filter((pull) => pull.state === 'open' && pull.head.startsWith(prefix)).length;
    },
    async findPullRequest(branch) {
      if (store.unreachable) return unreachable;
      const pull = store.pullRequests.filter((candidate) => candidate.head === branch).at(-1);
      return { ok: true, pullRequest: pull ? { url: pull.url, number: pull.number, state: pull.state } : null };
    },
    async create(input) {
      if (store.unreachable) return unreachable;
      if (!store.branches.has(input.head)) return { ok: false, reason: 'api', message: `GitHub refused the pull request (HTTP 422): no branch ${input.head} on the remote.`, retryable: false, detail: { status: 422 } };
      if (store.pullRequests.some((pull) => pull.head === input.head && pull.state === 'open')) {
        return { ok: false, reason: 'api', message: `GitHub refused the pull request (HTTP 422): a pull request already exists for ${input.head}.`, retryable: false, detail: { status: 422 } };
      }
      const failing = store.failNextCreate;
      store.failNextCreate = null;
      if (failing && !failing.opened) return { ok: false, reason: 'api', message: 'GitHub refused the pull request (HTTP 500): Server Error', retryable: true, detail: { status: 500 } };
      const pull = store.openPullRequest(input);
      if (failing) return { ok: false, reason: 'api', message: 'GitHub refused the pull request (HTTP 500): Server Error', retryable: true, detail: { status: 500 } };
      return { ok: true, url: pull.url, number: pull.number };
    },
    async merge(_url, number) {
      const pull = store.pullRequests.find((candidate) => candidate.number === number);
      if (!pull) return { ok: false, reason: 'api', message: `GitHub refused the merge (HTTP 404): no pull request ${String(number)}.`, retryable: false };
      pull.state = 'merged';
      return { ok: true };
    },
  };
}
