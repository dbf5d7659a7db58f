/**
 * The Delivery port over git and GitHub: keep the branch (local), push it,
 * or push and open a pull request (draft below L3), merging only when the
 * engine asks (L3 with the auto-merge allowlist passing).
 *
 * Idempotent: the dedupe key (pattern + item) is recorded `pending` in
 * `.loop-runtime/deliveries.json` before anything is pushed, so the same
 * item never gets a second push or pull request; a `pending` left by a crash
 * is reconciled against the remote (`git ls-remote`, GitHub) once it is older
 * than the lease timeout (see delivery-flow.ts). A corrupt ledger throws
 * `STATE_FAILED`. Never force-pushes.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Clock, Delivery, DeliveryFailure, DeliveryRequest, DeliveryResult } from '../../core/ports/index.js';
import { LoopRuntimeError } from '../../core/errors.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import { formatDeliveryLedger, githubRepository, openProposalItems, parseDeliveryLedger, type DeliveryLedger } from '../../core/workspace/delivery-ledger.js';
import { readTextOrNull, withFileLock, writeTextAtomically } from '../fs/atomic-file.js';
import { gitHubClient, type GitHubClient } from './delivery-github.js';
import { deliverThroughLedger, type BeforePushHook, type DeliveryLedgerStore } from './delivery-flow.js';
import { rebaseIfMoved } from './git-delivery-rebase.js';
import { git, type GitRunner } from '../git/git-run.js';
import { WorktreeStore } from '../workspace/git-worktree-store.js';

/**
 * Default age after which a `pending` delivery record is presumed abandoned:
 * the default tick timeout (30 min) plus the lease margin (5 min). The
 * composition root passes the plan's own `timeoutMs + LEASE_MARGIN_MS`.
 */
export const DEFAULT_PENDING_TIMEOUT_MS = 35 * 60_000;

export interface GitDeliveryOptions {
  root: string;
  /** The plan's delivery block (mode, remote, draft, caps, branch prefix, base branch, author). */
  delivery: ExecutionPlan['delivery'];
  clock: Clock;
  env?: Record<string, string | undefined>;
  /** Runtime files directory (default ".loop-runtime"). */
  stateDir?: string;
  /** The `worktreesDir` setting; default: the state directory (worktrees-location.ts). */
  worktreesDir?: string | null;
  /** Injected GitHub client (tests); otherwise gh on PATH or the REST API through Octokit. */
  github?: GitHubClient | null;
  /** The fetch the REST client uses (default: Node's global fetch). */
  fetch?: typeof fetch;
  /**
   * The lease timeout (the plan's `timeoutMs + LEASE_MARGIN_MS`): a `pending`
   * record younger than this may belong to a live process and is left alone;
   * an older one is reconciled against the remote. Default 35 minutes.
   */
  pendingTimeoutMs?: number;
  /** Fault injection for tests: runs after the dedupe key is recorded, before the push. A throw is a crash. */
  beforePush?: BeforePushHook;
  /**
   * What outcome tracking knows of delivered changes: commits known merged,
   * closed or reverted (their proposals are no longer open), and the changes
   * still open (local branches included, which have no ledger record).
   * Without it, only the ledger's own records count.
   */
  trackedProposals?: () => Promise<{ settledCommits: ReadonlySet<string>; open: ReadonlyArray<{ pattern: string; itemKey: string }> }>;
  /** Redacts what deliveries.json keeps of a failure (git/gh output may quote a token). */
  redact?: (text: string) => string;
  /** The dedupe ledger shared by a fleet (Postgres); default `<stateDir>/deliveries.json` under a file lock. */
  ledger?: DeliveryLedgerStore;
}

const failure = (reason: DeliveryFailure['reason'], message: string, detail: Record<string, unknown> = {}, retryable = false): DeliveryFailure => ({ ok: false, reason, message, retryable, detail });

/**
 * @example
 * ```ts
 * const delivery = new GitDelivery({ root: '/repo', delivery: plan.delivery, clock: { now: Date.now }, pendingTimeoutMs: plan.timeoutMs + LEASE_MARGIN_MS });
 * await delivery.deliver(request); // → { ok: true, kind: 'pull-request', url: 'https://github.com/…/pull/7', branch }
 * ```
 */
export class GitDelivery implements Delivery {
  readonly specificationVersion = 'delivery-v1' as const;
  readonly ledgerPath: string;
  private readonly options: GitDeliveryOptions;
  private readonly rootGit: GitRunner;
  private readonly worktrees: WorktreeStore;

  constructor(options: GitDeliveryOptions) {
    this.options = options;
    this.ledgerPath = join(resolve(options.root), options.stateDir ?? '.loop-runtime', 'deliveries.json');
    this.rootGit = git(options.root);
    this.worktrees = new WorktreeStore(options.root, options.worktreesDir);
  }

  async deliver(request: DeliveryRequest): Promise<DeliveryResult> {
    const settings = this.options.delivery;
    const baseBranch = await this.baseBranchFor(request);
    if (settings.mode === 'local') {
      const rebased = await rebaseIfMoved(this.rootGit, request, baseBranch, null, settings.author);
      return rebased.ok ? { ok: true, kind: 'local', branch: request.handle.branch } : rebased;
    }
    let github: GitHubClient | null = null;
    if (settings.mode === 'pull-request') {
      github = this.options.github !== undefined ? this.options.github : await this.defaultGitHub();
      if (!github) {
        return failure('api', 'Cannot open a pull request: the gh CLI is not on PATH and neither GITHUB_TOKEN nor GH_TOKEN is set. To fix: install gh and run `gh auth login`, or export GITHUB_TOKEN.');
      }
      if (!baseBranch) return failure('api', 'Cannot open a pull request: the base branch is unknown (HEAD was detached). To fix: set baseBranch in the loop settings.');
    }
    return deliverThroughLedger(
      {
        settings: { ...settings, mode: settings.mode },
        clock: this.options.clock,
        pendingTimeoutMs: this.options.pendingTimeoutMs ?? DEFAULT_PENDING_TIMEOUT_MS,
        github,
        baseBranch: baseBranch ?? 'main',
        updateLedger: (change) => (this.options.ledger ? this.options.ledger.update(change) : this.updateLedger(change)),
        remoteBranch: (branch) => this.remoteBranch(branch),
        push: (pushed) => this.push(pushed, baseBranch),
        ...(this.options.beforePush ? { beforePush: this.options.beforePush } : {}),
        ...(this.options.redact ? { redact: this.options.redact } : {}),
      },
      request,
    );
  }

  /**
   * The item keys of `patternId` with a proposal still open: the dedupe
   * ledger's records not known merged (being delivered, pushed, a pull
   * request, a failed delivery) and the changes escalated to a human.
   */
  async openProposals(patternId: string): Promise<string[]> {
    const ledger = await this.readLedger();
    const tracked = (await this.options.trackedProposals?.()) ?? { settledCommits: new Set<string>(), open: [] };
    const open = ledger.deliveries.filter((entry) => !(entry.commit && tracked.settledCommits.has(entry.commit)));
    const openTracked = tracked.open.filter((change) => change.pattern === patternId).map((change) => change.itemKey);
    // Only changes that really wait in this repository: a manifest entry git does not know blocks nothing.
    const escalated = (await this.worktrees.waiting()).filter((entry) => entry.pattern === patternId && entry.itemKey);
    return [...new Set([...openProposalItems({ ...ledger, deliveries: open }, patternId), ...openTracked, ...escalated.map((entry) => entry.itemKey!)])];
  }

  /**
   * Removes the `failed` record of `key` (a human dropped the change). Anything else under the key is left
   * alone. Returns whether a record was removed.
   */
  async forgetFailed(key: string): Promise<boolean> {
    const update = <T>(change: (ledger: DeliveryLedger) => { ledger: DeliveryLedger; result: T }) => (this.options.ledger ? this.options.ledger.update(change) : this.updateLedger(change));
    return update((ledger) => {
      const failed = ledger.deliveries.some((entry) => entry.key === key && entry.kind === 'failed');
      return { ledger: failed ? { ...ledger, deliveries: ledger.deliveries.filter((entry) => entry.key !== key) } : ledger, result: failed };
    });
  }

  /** The dedupe ledger as it is now (the shared one read under its lock, changing nothing; the file without a lock). Throws `STATE_FAILED` when it is corrupt. */
  async readLedger(): Promise<DeliveryLedger> {
    if (this.options.ledger) return this.options.ledger.update((ledger) => ({ ledger, result: ledger }));
    return parseDeliveryLedger(await readTextOrNull(this.ledgerPath), this.ledgerPath);
  }

  private async push(request: DeliveryRequest, baseBranch: string | null): Promise<{ ok: true } | DeliveryFailure> {
    const { remote, author } = this.options.delivery;
    const branch = request.handle.branch;
    const rebased = await rebaseIfMoved(this.rootGit, request, baseBranch, remote, author);
    if (!rebased.ok) return rebased;
    // No force: a branch of the same name on the remote that is not ours makes this fail, never overwrites it.
    try {
      await this.rootGit.raw(['push', '--quiet', remote, `refs/heads/${branch}:refs/heads/${branch}`]);
      return { ok: true };
    } catch (error) {
      const message = (error as Error).message.slice(-400);
      return failure('push', `Could not push ${branch} to ${remote}: ${message} To fix: check the remote and your credentials; loop-runtime never force-pushes.`, {}, true);
    }
  }

  /** `git ls-remote`: whether the remote has `branch`; a failure when the remote cannot be reached. */
  private async remoteBranch(branch: string): Promise<{ ok: true; exists: boolean } | DeliveryFailure> {
    const { remote } = this.options.delivery;
    try {
      const listed = await this.rootGit.raw(['ls-remote', '--heads', remote, `refs/heads/${branch}`]);
      return { ok: true, exists: listed.split('\n').some((line) => line.trim().endsWith(`\trefs/heads/${branch}`)) };
    } catch (error) {
      return failure('push', `git ls-remote ${remote} failed: ${(error as Error).message.slice(-400)}`, {}, true);
    }
  }

  private async baseBranchFor(request: DeliveryRequest): Promise<string | null> {
    if (this.options.delivery.baseBranch) return this.options.delivery.baseBranch;
    const entry = (await this.worktrees.read()).worktrees.find((candidate) => candidate.id === request.handle.id);
    return entry?.baseBranch ?? null;
  }

  private async defaultGitHub(): Promise<GitHubClient | null> {
    const env = this.options.env ?? process.env;
    const remoteUrl = (await this.rootGit.tryRaw(['remote', 'get-url', this.options.delivery.remote]))?.trim() ?? '';
    const repository = env.GITHUB_REPOSITORY ?? githubRepository(remoteUrl);
    return gitHubClient({ root: this.options.root, env, repository, ...(this.options.fetch ? { fetch: this.options.fetch } : {}) });
  }

  private async updateLedger<T>(change: (ledger: DeliveryLedger) => { ledger: DeliveryLedger; result: T }): Promise<T> {
    await mkdir(dirname(this.ledgerPath), { recursive: true });
    return withFileLock(this.ledgerPath, async () => {
      let before: string | null;
      try {
        before = await readTextOrNull(this.ledgerPath);
      } catch (error) {
        // Unreadable is as unknown as corrupt: never treated as empty.
        throw new LoopRuntimeError('STATE_FAILED', `The delivery ledger ${this.ledgerPath} cannot be read: ${(error as Error).message}. Without it loop-runtime cannot tell which items it already pushed, so it delivers nothing.`, {
          cause: error,
          fix: `make ${this.ledgerPath} readable by this user (or move it aside after checking the remote for loop branches and open loop pull requests).`,
        });
      }
      const { ledger, result } = change(parseDeliveryLedger(before, this.ledgerPath));
      const after = formatDeliveryLedger(ledger);
      if (after !== before) await writeTextAtomically(this.ledgerPath, after);
      return result;
    });
  }
}
