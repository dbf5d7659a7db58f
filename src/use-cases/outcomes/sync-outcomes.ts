/**
 * `outcomes sync` and the cheap check at the start of a tick: for every
 * delivered change that can still change (open, or merged and so still
 * revertible), ask git — and GitHub for pull requests — what became of it,
 * and append an observation when the answer differs from the last one. No
 * model call, no fetch; a question nobody answers leaves the change as it
 * was and is reported.
 */
import { githubRepository } from '../../core/workspace/delivery-ledger.js';
import { isSettled, type ObservationLine, type TrackedChange } from '../../core/outcomes/index.js';
import { toIsoString } from '../../core/time/utc-time.js';
import type { Clock } from '../../core/ports/index.js';
import { git } from '../../adapters/git/git-run.js';
import { gitChangeState, headBranch } from '../../adapters/outcomes/check-git.js';
import { pullRequestReader, type PullRequestReader } from '../../adapters/outcomes/check-pull-request.js';
import type { OutcomeStore } from '../../adapters/outcomes/outcome-store.js';

export interface OutcomeChangeReport {
  pattern: string;
  itemKey: string;
  commit: string;
  from: TrackedChange['state'];
  to: TrackedChange['state'];
  via: ObservationLine['via'];
  url?: string;
}

export interface SyncReport {
  at: string;
  /** Changes asked about. */
  checked: number;
  /** Changes whose state (or checks) moved. */
  changed: OutcomeChangeReport[];
  /** Changes nobody could answer for, with why. */
  unchecked: Array<{ pattern: string; commit: string; reason: string }>;
}

export interface SyncOptions {
  clock: Clock;
  env: Record<string, string | undefined>;
  /** The project's shared outcome lines (`ProjectStores.outcomes()`). */
  outcomes: OutcomeStore;
  /** Only these loops (default: every loop in the file). */
  patterns?: readonly string[];
  remote?: string;
}

/** Checks every unsettled change and appends what moved. */
export async function syncOutcomes(root: string, options: SyncOptions): Promise<SyncReport> {
  const store = options.outcomes;
  const history = await store.history();
  const at = toIsoString(options.clock.now());
  const report: SyncReport = { at, checked: 0, changed: [], unchecked: [] };
  const wanted = (change: TrackedChange) => !options.patterns || options.patterns.includes(change.proposal.pattern);
  const open = history.changes.filter((change) => wanted(change) && !isSettled(change.state));
  let reader: PullRequestReader | null | undefined;
  const readerFor = async () => {
    if (reader === undefined) {
      const remoteUrl = (await git(root).tryRaw(['remote', 'get-url', options.remote ?? 'origin']))?.trim() ?? '';
      reader = await pullRequestReader(root, options.env, options.env.GITHUB_REPOSITORY ?? githubRepository(remoteUrl));
    }
    return reader;
  };
  const fallbackBase = await headBranch(root);
  const observations: ObservationLine[] = [];
  for (const change of open) {
    const { proposal } = change;
    const base = proposal.base ?? fallbackBase;
    if (!base) {
      report.unchecked.push({ pattern: proposal.pattern, commit: proposal.commit, reason: 'no base branch recorded and HEAD is detached' });
      continue;
    }
    const viaPullRequest = Boolean(proposal.url && (proposal.delivery === 'pull-request' || proposal.delivery === 'merged'));
    if (!viaPullRequest && store.reach === 'repository' && (await git(root).tryRaw(['cat-file', '-e', `${proposal.commit}^{commit}`])) === null) {
      // Another checkout's local proposal (the fleet store is shared): its branch is not here, which says nothing about it.
      report.unchecked.push({ pattern: proposal.pattern, commit: proposal.commit, reason: `commit ${proposal.commit.slice(0, 12)} is not in this checkout (a local proposal of another checkout): left as it was` });
      continue;
    }
    report.checked += 1;
    let observation: ObservationLine;
    const common = { type: 'observation' as const, at, pattern: proposal.pattern, commit: proposal.commit };
    if (viaPullRequest && proposal.url) {
      const pullRequests = await readerFor();
      if (!pullRequests) {
        report.unchecked.push({ pattern: proposal.pattern, commit: proposal.commit, reason: `cannot ask GitHub about ${proposal.url}: no gh on PATH and no GITHUB_TOKEN/GH_TOKEN with a github.com remote or GITHUB_REPOSITORY` });
        continue;
      }
      const pull = await pullRequests.read(proposal.url);
      if (!pull.ok) {
        report.unchecked.push({ pattern: proposal.pattern, commit: proposal.commit, reason: pull.message });
        continue;
      }
      const revertedBy =
        pull.state === 'merged' ? (await gitChangeState(root, proposal.commit, base, { tickId: proposal.tickId, ...(pull.landedAs ? { landedAs: pull.landedAs } : {}) })).revertedBy : null;
      observation = {
        ...common,
        state: revertedBy ? 'reverted' : pull.state,
        via: pull.via,
        openedAt: pull.openedAt,
        mergedAt: pull.mergedAt,
        checks: pull.checks,
        ...(pull.landedAs ? { landedAs: pull.landedAs } : {}),
        ...(revertedBy ? { revertedBy } : {}),
      };
    } else {
      const state = await gitChangeState(root, proposal.commit, base, { tickId: proposal.tickId, ...(options.remote ? { remote: options.remote } : {}) });
      const branchGone = !state.mergedInto && (await git(root).tryRaw(['rev-parse', '--verify', '--quiet', `refs/heads/${proposal.branch}`])) === null;
      observation = {
        ...common,
        state: state.revertedBy ? 'reverted' : state.mergedInto ? 'merged' : branchGone ? 'closed' : 'open',
        via: 'git',
        openedAt: proposal.at,
        mergedAt: state.mergedInto ? (change.observation?.mergedAt ?? state.mergedAt ?? at) : null,
        ...(state.revertedBy ? { revertedBy: state.revertedBy } : {}),
      };
    }
    const previous = change.observation;
    if (!previous || previous.state !== observation.state || previous.checks !== observation.checks || previous.mergedAt !== observation.mergedAt) {
      observations.push(observation);
      if (change.state !== observation.state) {
        report.changed.push({ pattern: proposal.pattern, itemKey: proposal.itemKey, commit: proposal.commit, from: change.state, to: observation.state, via: observation.via, ...(proposal.url ? { url: proposal.url } : {}) });
      }
    }
  }
  await store.append(observations);
  return report;
}
