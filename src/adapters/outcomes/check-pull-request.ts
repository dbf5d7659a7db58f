/**
 * The state of a loop's pull request on GitHub — through `gh pr view` when gh
 * is on PATH, else the REST API through Octokit with GITHUB_TOKEN/GH_TOKEN
 * (the same choice delivery makes). Failures are data: an unanswered
 * question leaves the change's last known state alone.
 */
import { execa } from 'execa';
import { findExecutable } from '../command-runner/sandbox-host.js';
import type { ChecksState } from '../../core/outcomes/index.js';

export interface PullRequestState {
  state: 'open' | 'merged' | 'closed';
  openedAt: string | null;
  mergedAt: string | null;
  /** The commit that landed it on the base (squash or merge commit). */
  landedAs: string | null;
  checks: ChecksState;
  via: 'gh' | 'rest';
}

export type PullRequestLookup = ({ ok: true } & PullRequestState) | { ok: false; message: string };

export interface PullRequestReader {
  readonly via: 'gh' | 'rest';
  read(url: string): Promise<PullRequestLookup>;
}

/** Folds check runs / status contexts into one state: any failure fails, any unfinished is pending. */
export function foldChecks(items: ReadonlyArray<{ status?: string | null; conclusion?: string | null; state?: string | null }>): ChecksState {
  if (items.length === 0) return 'none';
  const results = items.map((item) => (item.conclusion ?? item.state ?? '').toLowerCase());
  const unfinished = items.some((item) => item.status && item.status.toLowerCase() !== 'completed' && !item.state);
  if (results.some((result) => ['failure', 'error', 'cancelled', 'timed_out', 'action_required', 'startup_failure'].includes(result))) return 'failing';
  if (unfinished || results.some((result) => result === '' || result === 'pending' || result === 'expected')) return 'pending';
  return 'passing';
}

const pullNumber = (url: string): number | null => {
  const match = /\/pull\/(\d+)\/?$/.exec(url);
  return match ? Number(match[1]) : null;
};

function ghReader(gh: string, root: string, env: Record<string, string | undefined>): PullRequestReader {
  return {
    via: 'gh',
    async read(url) {
      const result = await execa(gh, ['pr', 'view', url, '--json', 'state,createdAt,mergedAt,mergeCommit,statusCheckRollup'], {
        cwd: root,
        env: { ...env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1' },
        extendEnv: false,
        reject: false,
        timeout: 60_000,
      });
      if (result.exitCode !== 0) return { ok: false, message: `gh pr view ${url} failed (exit ${result.exitCode ?? result.signal}): ${String(result.stderr).trim().slice(-300)}` };
      try {
        const view = JSON.parse(String(result.stdout)) as {
          state?: string;
          createdAt?: string;
          mergedAt?: string | null;
          mergeCommit?: { oid?: string } | null;
          statusCheckRollup?: Array<{ status?: string; conclusion?: string; state?: string }>;
        };
        const state = view.state?.toUpperCase();
        return {
          ok: true,
          state: state === 'MERGED' ? 'merged' : state === 'CLOSED' ? 'closed' : 'open',
          openedAt: view.createdAt ?? null,
          mergedAt: view.mergedAt ?? null,
          landedAs: view.mergeCommit?.oid ?? null,
          checks: foldChecks(view.statusCheckRollup ?? []),
          via: 'gh',
        };
      } catch {
        return { ok: false, message: `gh pr view ${url} printed something that is not JSON` };
      }
    },
  };
}

async function restReader(token: string, repository: string, env: Record<string, string | undefined>): Promise<PullRequestReader> {
  const { Octokit } = await import('@octokit/rest');
  const octokit = new Octokit({
    auth: token,
    baseUrl: (env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
    userAgent: 'loop-runtime',
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  const [owner = '', repo = ''] = repository.split('/');
  return {
    via: 'rest',
    async read(url) {
      const number = pullNumber(url);
      if (number === null) return { ok: false, message: `${url} is not a pull request URL` };
      try {
        const { data: pull } = await octokit.rest.pulls.get({ owner, repo, pull_number: number });
        const { data: runs } = await octokit.rest.checks.listForRef({ owner, repo, ref: pull.head.sha, per_page: 100 });
        return {
          ok: true,
          state: pull.merged_at ? 'merged' : pull.state === 'closed' ? 'closed' : 'open',
          openedAt: pull.created_at,
          mergedAt: pull.merged_at,
          landedAs: pull.merged_at ? pull.merge_commit_sha : null,
          checks: foldChecks(runs.check_runs),
          via: 'rest',
        };
      } catch (error) {
        const status = typeof error === 'object' && error !== null && 'status' in error ? ` (HTTP ${String(error.status)})` : '';
        return { ok: false, message: `GitHub could not be asked about ${url}${status}: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
  };
}

/** gh when on PATH, else the REST API with a token and a repository, else null (pull requests stay unchecked). */
export async function pullRequestReader(root: string, env: Record<string, string | undefined>, repository: string | null): Promise<PullRequestReader | null> {
  const gh = await findExecutable('gh', env);
  if (gh) return ghReader(gh, root, env);
  const token = env.GITHUB_TOKEN ?? env.GH_TOKEN;
  if (!token || !repository) return null;
  return restReader(token, repository, env);
}
