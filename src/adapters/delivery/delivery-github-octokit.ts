/**
 * The GitHub client over the REST API through Octokit (`@octokit/rest`).
 * Listing open pull requests follows every page (`octokit.paginate`), so the
 * open-PR cap sees them all. No retry plugin: a failure is reported, and the
 * engine's next tick is the retry. `GITHUB_API_URL` points it elsewhere
 * (GitHub Enterprise Server, tests).
 */
import { Octokit } from '@octokit/rest';
import { apiFailure, type FoundPullRequest, type GitHubClient, type GitHubClientOptions } from './delivery-github-types.js';

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function describe(error: unknown): { message: string; status: number | null } {
  const status = typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number' ? error.status : null;
  return { message: error instanceof Error ? error.message : String(error), status };
}

/** A 429, a 5xx or no answer at all may pass; anything else (auth, validation) will not. */
const isRetryable = (status: number | null) => status === null || status === 429 || status >= 500;

export function octokitClient(token: string, options: GitHubClientOptions): GitHubClient {
  const octokit = new Octokit({
    auth: token,
    baseUrl: (options.env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
    userAgent: 'loop-runtime',
    log: silent,
    request: { fetch: options.fetch ?? globalThis.fetch },
  });
  const [owner, repo] = (options.repository ?? '').split('/');
  const target = owner && repo ? { owner, repo } : null;
  const noRepository = () => apiFailure('cannot tell which GitHub repository to use. To fix: use a github.com remote, or set GITHUB_REPOSITORY=owner/repo.');
  const failed = (what: string, error: unknown) => {
    const { message, status } = describe(error);
    return apiFailure(`GitHub ${what} (${status === null ? 'no answer' : `HTTP ${status}`}): ${message}`, status === null ? {} : { status }, isRetryable(status));
  };
  return {
    via: 'rest',
    async countOpen(prefix) {
      if (!target) return null;
      try {
        const open = await octokit.paginate(octokit.rest.pulls.list, { ...target, state: 'open', per_page: 100 });
        return open.filter((pull) => pull.head.ref.startsWith(prefix)).length;
      } catch {
        return null;
      }
    },
    async findPullRequest(branch) {
      if (!target) return noRepository();
      try {
        const { data } = await octokit.rest.pulls.list({ ...target, state: 'all', head: `${target.owner}:${branch}`, per_page: 1 });
        const pull = data[0];
        if (!pull) return { ok: true, pullRequest: null };
        const state: FoundPullRequest['state'] = pull.merged_at ? 'merged' : pull.state === 'closed' ? 'closed' : 'open';
        return { ok: true, pullRequest: { url: pull.html_url, number: pull.number, state } };
      } catch (error) {
        return failed(`could not list pull requests for ${branch}`, error);
      }
    },
    async create(input) {
      if (!target) return noRepository();
      try {
        const { data } = await octokit.rest.pulls.create({ ...target, ...input });
        return { ok: true, url: data.html_url, number: data.number };
      } catch (error) {
        return failed('refused the pull request', error);
      }
    },
    async merge(_url, number) {
      if (!target || number === null) return noRepository();
      try {
        await octokit.rest.pulls.merge({ ...target, pull_number: number, merge_method: 'squash' });
        return { ok: true };
      } catch (error) {
        return failed('refused the merge', error);
      }
    },
  };
}
