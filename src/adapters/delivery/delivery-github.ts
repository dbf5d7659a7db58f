/**
 * Pull requests on GitHub: through the `gh` CLI when it is on PATH, else the
 * REST API with GITHUB_TOKEN / GH_TOKEN (over fetch). Failures are data.
 */
import { execa } from 'execa';
import type { Failure } from '../../core/ports/index.js';
import { findExecutable } from '../command-runner/sandbox-host.js';

export interface PullRequestInput {
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
}

export type GitHubResult<T> = ({ ok: true } & T) | Failure<'api'>;

/** What delivery needs from GitHub. */
export interface GitHubClient {
  readonly via: 'gh' | 'rest';
  /** Open pull requests whose head branch starts with `prefix`, or null when unknown. */
  countOpen(prefix: string): Promise<number | null>;
  create(input: PullRequestInput): Promise<GitHubResult<{ url: string; number: number | null }>>;
  /** Enables auto-merge (squash) where supported, else merges now. */
  merge(url: string, number: number | null): Promise<GitHubResult<object>>;
}

export interface GitHubClientOptions {
  root: string;
  env: Record<string, string | undefined>;
  /** `owner/repo`, for the REST API (from GITHUB_REPOSITORY or the remote URL). */
  repository: string | null;
  fetch?: typeof fetch;
}


const apiFailure = (message: string, detail: Record<string, unknown> = {}, retryable = false): Failure<'api'> => ({ ok: false, reason: 'api', message, retryable, detail });

/** The gh CLI (uses the user's `gh auth login`). */
export function ghClient(gh: string, options: GitHubClientOptions): GitHubClient {
  const run = (args: string[], input?: string) =>
    execa(gh, args, { cwd: options.root, env: { ...options.env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1' }, extendEnv: false, reject: false, timeout: 120_000, ...(input !== undefined ? { input } : {}) });
  return {
    via: 'gh',
    async countOpen(prefix) {
      const result = await run(['pr', 'list', '--state', 'open', '--limit', '200', '--json', 'headRefName']);
      if (result.exitCode !== 0) return null;
      try {
        const rows = JSON.parse(String(result.stdout)) as Array<{ headRefName?: string }>;
        return rows.filter((row) => row.headRefName?.startsWith(prefix)).length;
      } catch {
        return null;
      }
    },
    async create(input) {
      const args = ['pr', 'create', '--head', input.head, '--base', input.base, '--title', input.title, '--body-file', '-'];
      if (input.draft) args.push('--draft');
      const result = await run(args, input.body);
      const url = String(result.stdout).split('\n').map((line) => line.trim()).reverse().find((line) => /^https?:\/\//.test(line));
      if (result.exitCode !== 0 || !url) {
        return apiFailure(`gh pr create failed (exit ${result.exitCode ?? result.signal}): ${String(result.stderr).trim().slice(-500)}`, { exitCode: result.exitCode });
      }
      const number = Number(/\/pull\/(\d+)/.exec(url)?.[1]);
      return { ok: true, url, number: Number.isFinite(number) ? number : null };
    },
    async merge(url) {
      const result = await run(['pr', 'merge', url, '--auto', '--squash']);
      if (result.exitCode !== 0) return apiFailure(`gh pr merge failed (exit ${result.exitCode}): ${String(result.stderr).trim().slice(-500)}`, { exitCode: result.exitCode });
      return { ok: true };
    },
  };
}

/** GitHub's REST API with a token. `GITHUB_API_URL` points it elsewhere (GHES, tests). */
export function restClient(token: string, options: GitHubClientOptions): GitHubClient {
  const api = (options.env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const repository = options.repository;
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
    const response = await doFetch(`${api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'loop-runtime',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: response.status, json };
  };
  const noRepository = () => apiFailure('cannot tell which GitHub repository to open the pull request on. To fix: use a github.com remote, or set GITHUB_REPOSITORY=owner/repo.');
  return {
    via: 'rest',
    async countOpen(prefix) {
      if (!repository) return null;
      try {
        const { status, json } = await call('GET', `/repos/${repository}/pulls?state=open&per_page=100`);
        if (status !== 200 || !Array.isArray(json)) return null;
        return (json as Array<{ head?: { ref?: string } }>).filter((row) => row.head?.ref?.startsWith(prefix)).length;
      } catch {
        return null;
      }
    },
    async create(input) {
      if (!repository) return noRepository();
      try {
        const { status, json } = await call('POST', `/repos/${repository}/pulls`, input);
        const created = json as { html_url?: string; number?: number; message?: string };
        if (status !== 201 || !created.html_url) {
          return apiFailure(`GitHub refused the pull request (HTTP ${status}): ${created.message ?? 'no message'}`, { status }, status === 429 || status >= 500);
        }
        return { ok: true, url: created.html_url, number: created.number ?? null };
      } catch (error) {
        return apiFailure(`GitHub could not be reached: ${(error as Error).message}`, {}, true);
      }
    },
    async merge(_url, number) {
      if (!repository || number === null) return noRepository();
      try {
        const { status, json } = await call('PUT', `/repos/${repository}/pulls/${number}/merge`, { merge_method: 'squash' });
        if (status !== 200) return apiFailure(`GitHub refused the merge (HTTP ${status}): ${(json as { message?: string })?.message ?? ''}`, { status });
        return { ok: true };
      } catch (error) {
        return apiFailure(`GitHub could not be reached: ${(error as Error).message}`, {}, true);
      }
    },
  };
}

/** gh when on PATH, else REST with a token, else null. */
export async function gitHubClient(options: GitHubClientOptions): Promise<GitHubClient | null> {
  const gh = await findExecutable('gh', options.env);
  if (gh) return ghClient(gh, options);
  const token = options.env.GITHUB_TOKEN ?? options.env.GH_TOKEN;
  return token ? restClient(token, options) : null;
}
