/** The GitHub client contract delivery uses, shared by the gh and Octokit clients. */
import type { Failure } from '../../core/ports/index.js';

export interface PullRequestInput {
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
}

/** A pull request found on GitHub for a head branch. */
export interface FoundPullRequest {
  url: string;
  number: number | null;
  state: 'open' | 'closed' | 'merged';
}

export type GitHubResult<T> = ({ ok: true } & T) | Failure<'api'>;

/** What delivery needs from GitHub. */
export interface GitHubClient {
  readonly via: 'gh' | 'rest';
  /** Open pull requests (every page) whose head branch starts with `prefix`, or null when unknown. */
  countOpen(prefix: string): Promise<number | null>;
  /** The newest pull request (any state) whose head is `branch`; `pullRequest: null` only when GitHub says there is none. */
  findPullRequest(branch: string): Promise<GitHubResult<{ pullRequest: FoundPullRequest | null }>>;
  create(input: PullRequestInput): Promise<GitHubResult<{ url: string; number: number | null }>>;
  /** Enables auto-merge (squash) where supported, else merges now. */
  merge(url: string, number: number | null): Promise<GitHubResult<object>>;
}

export interface GitHubClientOptions {
  root: string;
  env: Record<string, string | undefined>;
  /** `owner/repo`, for the REST API (from GITHUB_REPOSITORY or the remote URL). */
  repository: string | null;
  /** The fetch Octokit uses (default: Node's global fetch). Typed structurally so this file compiles without DOM types. */
  fetch?: (input: never, init?: never) => Promise<unknown>;
}

export const apiFailure = (message: string, detail: Record<string, unknown> = {}, retryable = false): Failure<'api'> => ({ ok: false, reason: 'api', message, retryable, detail });
