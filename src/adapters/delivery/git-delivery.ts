/**
 * The Delivery port over git and GitHub: keep the branch (local), push it,
 * or push and open a pull request (draft below L3), merging only when the
 * engine asks (L3 with the auto-merge allowlist passing).
 *
 * Idempotent: the dedupe key (pattern + item) is recorded in
 * `.loop-runtime/deliveries.json` before anything is pushed, so the same
 * item never gets a second push or pull request. Never force-pushes.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Clock, Delivery, DeliveryRecord, DeliveryRequest, Failure } from '../../core/ports/index.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import {
  findDelivery,
  formatDeliveryLedger,
  githubRepository,
  parseDeliveryLedger,
  pullRequestCapReason,
  recordedPullRequests,
  removeDelivery,
  setDelivery,
  type DeliveryLedger,
} from '../../core/workspace/delivery-ledger.js';
import { readTextOrNull, withFileLock, writeTextAtomically } from '../fs/atomic-file.js';
import { gitHubClient, type GitHubClient } from './delivery-github.js';
import { git, identityEnv, type GitRunner } from '../git/git-run.js';
import { isDirectory, WorktreeStore } from '../workspace/git-worktree-store.js';

type DeliveryFailure = Failure<'duplicate' | 'rate-limited' | 'conflict' | 'push' | 'api'>;
type DeliveryResult = ({ ok: true } & DeliveryRecord) | DeliveryFailure;

export interface GitDeliveryOptions {
  root: string;
  /** The plan's delivery block (mode, remote, draft, caps, branch prefix, base branch, author). */
  delivery: ExecutionPlan['delivery'];
  clock: Clock;
  env?: Record<string, string | undefined>;
  /** Runtime files directory (default ".loop-runtime"). */
  stateDir?: string;
  worktreesDir?: string;
  /** Injected GitHub client (tests); otherwise gh on PATH or the REST API. */
  github?: GitHubClient | null;
  fetch?: typeof fetch;
}

const failure = (reason: DeliveryFailure['reason'], message: string, detail: Record<string, unknown> = {}, retryable = false): DeliveryFailure => ({ ok: false, reason, message, retryable, detail });

/**
 * @example
 * ```ts
 * const delivery = new GitDelivery({ root: '/repo', delivery: plan.delivery, clock: { now: Date.now } });
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
    this.worktrees = new WorktreeStore(options.root, options.worktreesDir ?? '.loop-worktrees');
  }

  async deliver(request: DeliveryRequest): Promise<DeliveryResult> {
    const { mode } = this.options.delivery;
    const branch = request.handle.branch;
    const baseBranch = await this.baseBranchFor(request);

    if (mode === 'local') {
      const rebased = await this.rebaseIfMoved(request, baseBranch, null);
      if (!rebased.ok) return rebased;
      return { ok: true, kind: 'local', branch };
    }

    let github: GitHubClient | null = null;
    let openCount: number | null = null;
    if (mode === 'pull-request') {
      github = this.options.github !== undefined ? this.options.github : await this.defaultGitHub();
      if (!github) {
        return failure('api', 'Cannot open a pull request: the gh CLI is not on PATH and neither GITHUB_TOKEN nor GH_TOKEN is set. To fix: install gh and run `gh auth login`, or export GITHUB_TOKEN.');
      }
      if (!baseBranch) return failure('api', 'Cannot open a pull request: the base branch is unknown (HEAD was detached). To fix: set baseBranch in the loop settings.');
      openCount = await github.countOpen(this.options.delivery.branchPrefix);
    }

    // Reserve the dedupe key before pushing: a crash from here on never pushes twice.
    const reserved = await this.updateLedger<DeliveryResult | null>((ledger) => {
      const existing = findDelivery(ledger, request.dedupeKey);
      if (existing) return { ledger, result: { ok: true as const, kind: 'duplicate' as const, branch: existing.branch, ...(existing.url ? { url: existing.url } : {}) } };
      if (mode === 'pull-request') {
        const now = this.options.clock.now();
        const open = openCount ?? recordedPullRequests(ledger, request.patternId, now - 7 * 86_400_000);
        const capped = pullRequestCapReason(ledger, request.patternId, open, now, this.options.delivery);
        if (capped) return { ledger, result: failure('rate-limited', `Not opening another pull request: ${capped} To fix: merge or close the open loop pull requests, or raise delivery.maxOpenPullRequests / maxPullRequestsPerHour.`, { open }, true) };
      }
      const entry = { key: request.dedupeKey, pattern: request.patternId, itemKey: request.itemKey, branch, kind: 'pending' as const, commit: request.commit.sha, at: new Date(this.options.clock.now()).toISOString() };
      return { ledger: setDelivery(ledger, entry), result: null };
    });
    if (reserved) return reserved;

    const outcome = await this.pushAndOpen(request, baseBranch, github);
    await this.updateLedger((ledger) => {
      if (!outcome.ok) return { ledger: removeDelivery(ledger, request.dedupeKey), result: null };
      const existing = findDelivery(ledger, request.dedupeKey);
      const kind = outcome.kind === 'duplicate' || outcome.kind === 'local' ? 'pushed' : outcome.kind;
      const entry = { ...(existing ?? { key: request.dedupeKey, pattern: request.patternId, itemKey: request.itemKey, at: new Date(this.options.clock.now()).toISOString() }), branch, kind, ...(outcome.url ? { url: outcome.url } : {}) };
      return { ledger: setDelivery(ledger, entry), result: null };
    });
    return outcome;
  }

  private async pushAndOpen(request: DeliveryRequest, baseBranch: string | null, github: GitHubClient | null): Promise<DeliveryResult> {
    const { remote, draft } = this.options.delivery;
    const branch = request.handle.branch;
    const rebased = await this.rebaseIfMoved(request, baseBranch, remote);
    if (!rebased.ok) return rebased;
    // No force: a branch of the same name on the remote that is not ours makes this fail, never overwrites it.
    try {
      await this.rootGit.raw(['push', '--quiet', remote, `refs/heads/${branch}:refs/heads/${branch}`]);
    } catch (error) {
      const message = (error as Error).message.slice(-400);
      return failure('push', `Could not push ${branch} to ${remote}: ${message} To fix: check the remote and your credentials; loop-runtime never force-pushes.`, {}, true);
    }
    if (!github) return { ok: true, kind: 'pushed', branch };
    const created = await github.create({ head: branch, base: baseBranch ?? 'main', title: request.title, body: request.body, draft });
    if (!created.ok) return created;
    if (request.merge) {
      const merged = await github.merge(created.url, created.number);
      if (!merged.ok) return { ...merged, message: `Opened ${created.url}, but ${merged.message}` };
      return { ok: true, kind: 'merged', branch, url: created.url };
    }
    return { ok: true, kind: 'pull-request', branch, url: created.url };
  }

  /**
   * Rebases the branch onto the base's current tip when the base moved during
   * the tick. A conflict aborts the rebase and names the files.
   */
  private async rebaseIfMoved(request: DeliveryRequest, baseBranch: string | null, remote: string | null): Promise<{ ok: true } | DeliveryFailure> {
    if (!baseBranch) return { ok: true };
    let tip: string | null = null;
    if (remote) {
      await this.rootGit.tryRaw(['fetch', '--quiet', remote, `refs/heads/${baseBranch}:refs/remotes/${remote}/${baseBranch}`]);
      tip = (await this.rootGit.tryRaw(['rev-parse', '--verify', '--quiet', `refs/remotes/${remote}/${baseBranch}^{commit}`]))?.trim() || null;
    }
    tip ??= (await this.rootGit.tryRaw(['rev-parse', '--verify', '--quiet', `refs/heads/${baseBranch}^{commit}`]))?.trim() || null;
    if (!tip || tip === request.handle.baseCommit) return { ok: true };
    const branch = request.handle.branch;
    if ((await this.rootGit.tryRaw(['merge-base', '--is-ancestor', tip, `refs/heads/${branch}`])) !== null) return { ok: true };
    if (!(await isDirectory(request.handle.path))) {
      return failure('conflict', `The base ${baseBranch} moved to ${tip.slice(0, 12)} and the worktree of ${branch} is gone, so it cannot be rebased. To fix: rebase ${branch} by hand.`);
    }
    const worktree = git(request.handle.path);
    const env = identityEnv(this.options.delivery.author);
    const rebased = await worktree.tryRaw(['rebase', '--quiet', tip], env);
    if (rebased !== null) return { ok: true };
    const conflicted = ((await worktree.tryRaw(['diff', '--name-only', '--diff-filter=U'])) ?? '').split('\n').filter(Boolean);
    await worktree.tryRaw(['rebase', '--abort']);
    const files = conflicted.length ? conflicted.join(', ') : 'unknown files';
    return failure('conflict', `The base ${baseBranch} moved during the tick (${request.handle.baseCommit.slice(0, 12)} → ${tip.slice(0, 12)}) and rebasing ${branch} onto it conflicts in: ${files}. To fix: resolve the conflict in ${request.handle.path} by hand, or reject the change and let the next tick start from the new base.`, { conflicts: conflicted, base: tip });
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
      const before = await readTextOrNull(this.ledgerPath);
      const { ledger, result } = change(parseDeliveryLedger(before));
      const after = formatDeliveryLedger(ledger);
      if (after !== before) await writeTextAtomically(this.ledgerPath, after);
      return result;
    });
  }
}
