/**
 * Pull requests on GitHub: through the `gh` CLI when it is on PATH, else the
 * REST API through Octokit with GITHUB_TOKEN / GH_TOKEN. Failures are data.
 */
import { findExecutable } from '../command-runner/sandbox-host.js';
import { ghClient } from './delivery-github-gh.js';
import type { GitHubClient, GitHubClientOptions } from './delivery-github-types.js';

export type { FoundPullRequest, GitHubClient, GitHubClientOptions, GitHubResult, PullRequestInput } from './delivery-github-types.js';
export { ghClient };

/** gh when on PATH, else the REST API with a token, else null. */
export async function gitHubClient(options: GitHubClientOptions): Promise<GitHubClient | null> {
  const gh = await findExecutable('gh', options.env);
  if (gh) return ghClient(gh, options);
  const token = options.env.GITHUB_TOKEN ?? options.env.GH_TOKEN;
  if (!token) return null;
  // Octokit loads only when the REST path is taken: start-up stays fast for local and gh delivery.
  const { octokitClient } = await import('./delivery-github-octokit.js');
  return octokitClient(token, options);
}
