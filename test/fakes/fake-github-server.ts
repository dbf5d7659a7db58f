/**
 * A loopback server speaking the slice of GitHub's REST API delivery uses:
 * list pull requests (state and head filters, `per_page`/`page` with Link
 * headers rel="next"/"last", as GitHub paginates), create one (422 when the
 * head already has an open one, as GitHub does) and merge one. Stateful, so
 * crash-and-reconcile tests see what earlier processes opened.
 */
import { URL } from 'node:url';
import { sendJson, startHttpFake, type FakeServer } from './http-fake.js';

export interface FakePullRequest {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  /** Outcome tracking: times, the landing commit and check runs (defaults keep delivery tests unchanged). */
  createdAt?: string;
  mergedAt?: string;
  mergeCommitSha?: string;
  headSha?: string;
  checkRuns?: Array<{ status: string; conclusion: string | null }>;
  /** `owner/repo` the head branch lives in (a fork's); default the repository itself. */
  headRepository?: string;
}

export interface FakeGitHub extends FakeServer {
  pulls: FakePullRequest[];
  /** Adds pull requests opened by someone else (or by a crashed earlier process). */
  seed(heads: string[], state?: 'open' | 'closed'): void;
  htmlUrl(number: number): string;
  /**
   * The next pull-request creation answers `status` (e.g. 500) instead of 201;
   * with `created: true` the pull request is opened all the same (GitHub
   * failing after doing the work).
   */
  failNextCreate(status: number, options?: { created?: boolean }): void;
  /** Collaborator permissions (`GET /repos/{repo}/collaborators/{user}/permission`); a user not listed is a 404. */
  permissions: Map<string, 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'>;
  /**
   * Workflow runs' jobs and logs (`GET /repos/{repo}/actions/runs/{id}/jobs`, `GET /repos/{repo}/actions/jobs/{id}/logs`,
   * answered with the log text as GitHub's redirect target does).
   */
  runJobs: Map<number, Array<{ id: number; name: string; conclusion: string; log: string }>>;
}

export async function startFakeGitHub(repository = 'acme/demo'): Promise<FakeGitHub> {
  const pulls: FakePullRequest[] = [];
  const htmlUrl = (number: number) => `https://github.com/${repository}/pull/${number}`;
  const [owner] = repository.split('/');
  const toJson = (pull: FakePullRequest) => ({
    number: pull.number,
    html_url: htmlUrl(pull.number),
    state: pull.state,
    draft: pull.draft,
    merged_at: pull.merged ? (pull.mergedAt ?? '2026-05-01T10:00:00Z') : null,
    created_at: pull.createdAt ?? '2026-05-01T09:00:00Z',
    merge_commit_sha: pull.mergeCommitSha ?? null,
    title: pull.title,
    head: { ref: pull.head, label: `${owner}:${pull.head}`, sha: pull.headSha ?? `head-${pull.number}`, repo: { full_name: pull.headRepository ?? repository, fork: (pull.headRepository ?? repository) !== repository } },
    base: { ref: pull.base },
  });
  const add = (fields: Omit<FakePullRequest, 'number'>) => {
    const pull = { number: pulls.length + 1, ...fields };
    pulls.push(pull);
    return pull;
  };
  let base = '';
  const failingCreates: Array<{ status: number; created: boolean }> = [];
  const permissions: FakeGitHub['permissions'] = new Map();
  const runJobs: FakeGitHub['runJobs'] = new Map();
  const server = await startHttpFake((request, response) => {
    const url = new URL(request.url, base);
    const prefix = `/repos/${repository}/pulls`;
    if (request.method === 'GET' && url.pathname === prefix) {
      const state = url.searchParams.get('state') ?? 'open';
      const head = url.searchParams.get('head');
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30), 100);
      const page = Number(url.searchParams.get('page') ?? 1);
      const matching = pulls
        .filter((pull) => state === 'all' || pull.state === state)
        .filter((pull) => head === null || `${owner}:${pull.head}` === head)
        .reverse(); // newest first, as GitHub sorts by created desc
      const last = Math.max(1, Math.ceil(matching.length / perPage));
      const link = (n: number) => {
        const next = new URL(url);
        next.searchParams.set('page', String(n));
        return `<${next.toString()}>`;
      };
      const links = page < last ? [`${link(page + 1)}; rel="next"`, `${link(last)}; rel="last"`] : [];
      return sendJson(response, 200, matching.slice((page - 1) * perPage, page * perPage).map(toJson), links.length ? { link: links.join(', ') } : {});
    }
    if (request.method === 'POST' && url.pathname === prefix) {
      const body = request.body as { head: string; base: string; title: string; body: string; draft?: boolean };
      if (pulls.some((pull) => pull.head === body.head && pull.state === 'open')) {
        return sendJson(response, 422, { message: 'Validation Failed', errors: [{ message: `A pull request already exists for ${owner}:${body.head}.` }] });
      }
      const failing = failingCreates.shift();
      if (failing && !failing.created) return sendJson(response, failing.status, { message: 'Server Error' });
      const pull = add({ head: body.head, base: body.base, title: body.title, body: body.body, draft: body.draft ?? false, state: 'open', merged: false });
      if (failing) return sendJson(response, failing.status, { message: 'Server Error' });
      return sendJson(response, 201, toJson(pull));
    }
    const single = new RegExp(`^${prefix}/(\\d+)$`).exec(url.pathname);
    if (request.method === 'GET' && single) {
      const pull = pulls.find((candidate) => candidate.number === Number(single[1]));
      return pull ? sendJson(response, 200, toJson(pull)) : sendJson(response, 404, { message: 'Not Found' });
    }
    const checkRuns = new RegExp(`^/repos/${repository}/commits/([^/]+)/check-runs$`).exec(url.pathname);
    if (request.method === 'GET' && checkRuns) {
      const pull = pulls.find((candidate) => (candidate.headSha ?? `head-${candidate.number}`) === checkRuns[1]);
      const runs = pull?.checkRuns ?? [];
      return sendJson(response, 200, { total_count: runs.length, check_runs: runs });
    }
    const collaborator = new RegExp(`^/repos/${repository}/collaborators/([^/]+)/permission$`).exec(url.pathname);
    if (request.method === 'GET' && collaborator) {
      const permission = permissions.get(decodeURIComponent(collaborator[1]!));
      return permission ? sendJson(response, 200, { permission, user: { login: decodeURIComponent(collaborator[1]!) } }) : sendJson(response, 404, { message: 'Not Found' });
    }
    const jobs = new RegExp(`^/repos/${repository}/actions/runs/(\\d+)/jobs$`).exec(url.pathname);
    if (request.method === 'GET' && jobs) {
      const list = runJobs.get(Number(jobs[1])) ?? [];
      return sendJson(response, 200, { total_count: list.length, jobs: list.map(({ log: _log, ...job }) => ({ ...job, run_id: Number(jobs[1]), status: 'completed' })) });
    }
    const logs = new RegExp(`^/repos/${repository}/actions/jobs/(\\d+)/logs$`).exec(url.pathname);
    if (request.method === 'GET' && logs) {
      const job = [...runJobs.values()].flat().find((candidate) => candidate.id === Number(logs[1]));
      if (!job) return sendJson(response, 404, { message: 'Not Found' });
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      return void response.end(job.log);
    }
    const merge = new RegExp(`^${prefix}/(\\d+)/merge$`).exec(url.pathname);
    if (request.method === 'PUT' && merge) {
      const pull = pulls.find((candidate) => candidate.number === Number(merge[1]));
      if (!pull) return sendJson(response, 404, { message: 'Not Found' });
      Object.assign(pull, { state: 'closed', merged: true });
      return sendJson(response, 200, { merged: true, message: 'Pull Request successfully merged' });
    }
    return sendJson(response, 404, { message: `Not Found: ${request.method} ${url.pathname}` });
  });
  base = server.url;
  return {
    ...server,
    pulls,
    permissions,
    runJobs,
    htmlUrl,
    failNextCreate(status, options = {}) {
      failingCreates.push({ status, created: options.created ?? false });
    },
    seed(heads, state = 'open') {
      for (const head of heads) add({ head, base: 'main', title: `seeded ${head}`, body: '', draft: false, state, merged: false });
    },
  };
}
