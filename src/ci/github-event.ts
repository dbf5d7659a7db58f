/**
 * The event of an event-triggered tick as its one work item: a failed `workflow_run` (the run, and its failed jobs'
 * log tail fetched through the API), an `issues` event's issue, or a review / comment on one of the loop's own pull
 * requests. Called only after the trigger gate allowed the event (src/ci/trigger-gate.ts): this is the first code
 * that reads the event's text. Everything an outsider wrote (titles, bodies, logs) goes into `untrustedDetail` only,
 * redacted by the caller's redactor; the title stays a one-line, capped string the engine quotes as data.
 * Failures are data: `{ ok: false, reason, message, retryable, detail }`; "not ours" is a skip, not an error.
 */
import { Octokit } from '@octokit/rest';
import type { WorkItem } from '../core/ports/index.js';
import { ciFailureKeys } from '../core/schedule/ci-failure-key.js';
import { plainLine } from '../core/security/untrusted-text.js';
import { logTail } from './log-tail.js';

export type EventItemResult =
  | { ok: true; item: WorkItem; note: string }
  /** `ignored`: an event this loop does not act on (a run that did not fail, a pull request not the loop's): the tick is skipped. */
  | { ok: false; reason: 'ignored' | 'api-error' | 'bad-event'; message: string; retryable: boolean; detail?: { status?: number } };

export interface EventItemInput {
  /** `$GITHUB_EVENT_NAME`. */
  eventName: string;
  /** The parsed `$GITHUB_EVENT_PATH`. */
  event: Record<string, unknown>;
  /** `owner/repo`. */
  repository: string;
  token: string | undefined;
  apiUrl?: string | undefined;
  /** Branch prefixes of loop-runtime's own pull requests (e.g. `loop/`): reviews and comments elsewhere are ignored. */
  branchPrefixes: readonly string[];
  /** The runtime's redactor (secret values from the environment, secret shapes). */
  redact: (text: string) => string;
  fetch?: typeof globalThis.fetch;
}

/** The events that carry a work item; any other (schedule, workflow_dispatch) ticks as a scheduled tick does. */
export const ITEM_EVENTS = ['workflow_run', 'issues', 'pull_request_review', 'issue_comment'] as const;

const TITLE_MAX = 200;
const DETAIL_MAX = 4_000;
/** Failed jobs whose log is fetched (the first ones, in the API's order). */
const JOBS_WITH_LOGS = 3;

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const ignored = (message: string): EventItemResult => ({ ok: false, reason: 'ignored', message, retryable: false });

function octokitFor(input: EventItemInput): Octokit {
  return new Octokit({
    auth: input.token,
    baseUrl: (input.apiUrl ?? 'https://api.github.com').replace(/\/+$/, ''),
    userAgent: 'loop-runtime',
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    request: { fetch: input.fetch ?? globalThis.fetch, retries: 0 },
  });
}

function apiError(what: string, error: unknown): EventItemResult {
  const status = (error as { status?: number }).status;
  return {
    ok: false,
    reason: 'api-error',
    message: `GitHub did not answer ${what}${status ? ` (HTTP ${status})` : ''}: ${error instanceof Error ? error.message : String(error)}`,
    retryable: status === undefined || status >= 500 || status === 429,
    ...(status ? { detail: { status } } : {}),
  };
}

function detailOf(fields: Json, body: string, redact: (text: string) => string): string {
  const head = redact(JSON.stringify(fields));
  const rest = body.trim() ? `\n\n${redact(body.trim())}` : '';
  const detail = `${head}${rest}`;
  return detail.length > DETAIL_MAX ? `${detail.slice(0, DETAIL_MAX)}…` : detail;
}

/**
 * @example
 * ```ts
 * const result = await eventWorkItem({ eventName: 'issues', event, repository: 'acme/demo', token, branchPrefixes: ['loop/'], redact });
 * // → { ok: true, item: { key: 'issue#7', title: 'Login fails on Safari', untrustedDetail: '{"number":7,…}' }, note: 'github-event: issues labeled #7' }
 * ```
 */
export async function eventWorkItem(input: EventItemInput): Promise<EventItemResult> {
  switch (input.eventName) {
    case 'workflow_run':
      return failedRunItem(input);
    case 'issues':
      return issueItem(input);
    case 'pull_request_review':
    case 'issue_comment':
      return pullRequestItem(input);
    default:
      return ignored(`${input.eventName || 'this'} event carries no work item`);
  }
}

async function failedRunItem(input: EventItemInput): Promise<EventItemResult> {
  const run = record(input.event.workflow_run);
  const id = Number(run.id);
  if (!Number.isInteger(id) || id <= 0) return { ok: false, reason: 'bad-event', message: 'the workflow_run event has no workflow_run.id', retryable: false };
  if (run.conclusion !== 'failure') return ignored(`workflow run ${id} concluded ${text(run.conclusion) || 'without a conclusion'}, not failure`);
  const name = text(run.name) || 'workflow';
  const branch = text(run.head_branch) || 'detached';
  const [owner, repo] = input.repository.split('/') as [string, string];
  const octokit = octokitFor(input);
  const logs: string[] = [];
  try {
    const { data } = await octokit.rest.actions.listJobsForWorkflowRun({ owner, repo, run_id: id, filter: 'latest', per_page: 100 });
    const failed = data.jobs.filter((job) => job.conclusion === 'failure').slice(0, JOBS_WITH_LOGS);
    for (const job of failed) {
      const response = await octokit.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: job.id });
      logs.push(`--- job ${plainLine(job.name, 120)} ---\n${logTail(String(response.data))}`);
    }
  } catch (error) {
    return apiError(`the failed jobs' logs of run ${id}`, error);
  }
  const fields = { id, name, head_branch: branch, head_sha: text(run.head_sha), url: text(run.html_url), run_attempt: run.run_attempt ?? null };
  const detail = `${input.redact(JSON.stringify(fields))}\n\nFailed job log (last lines, untrusted):\n${input.redact(logs.join('\n') || '(no failed job log)')}`;
  return {
    ok: true,
    // One key per workflow and branch, not per run, and the same key the scheduled probe gives it (ci-failure-key.ts):
    // a burst of failures, or the event after a scheduled tick saw the failure, is one item, started once.
    item: { ...ciFailureKeys({ workflow: name, branch, runId: id }), title: plainLine(`${name} failed on ${branch} (run ${id})`, TITLE_MAX), untrustedDetail: detail },
    note: `github-event: workflow_run ${id} (${plainLine(name, 80)}@${plainLine(branch, 100)}) failed`,
  };
}

function issueItem(input: EventItemInput): EventItemResult {
  const issue = record(input.event.issue);
  const number = Number(issue.number);
  if (!Number.isInteger(number) || number <= 0) return { ok: false, reason: 'bad-event', message: 'the issues event has no issue.number', retryable: false };
  if (issue.pull_request !== undefined) return ignored(`#${number} is a pull request, not an issue`);
  const labels = Array.isArray(issue.labels) ? issue.labels.map((label) => text(record(label).name)).filter(Boolean) : [];
  const fields = { number, title: text(issue.title), url: text(issue.html_url), labels, action: text(input.event.action) };
  return {
    ok: true,
    item: { key: `issue#${number}`, title: plainLine(text(issue.title) || `issue ${number}`, TITLE_MAX), untrustedDetail: detailOf(fields, text(issue.body), input.redact) },
    note: `github-event: issues ${plainLine(text(input.event.action), 20)} #${number}`,
  };
}

async function pullRequestItem(input: EventItemInput): Promise<EventItemResult> {
  let pull = record(input.event.pull_request);
  const issue = record(input.event.issue);
  if (input.eventName === 'issue_comment') {
    if (issue.pull_request === undefined) return ignored(`the comment is on issue #${text(issue.number)}, not a pull request`);
    // A comment's payload names the pull request but not its branch: asked for through the API.
    const [owner, repo] = input.repository.split('/') as [string, string];
    try {
      pull = (await octokitFor(input).rest.pulls.get({ owner, repo, pull_number: Number(issue.number) })).data as unknown as Json;
    } catch (error) {
      return apiError(`pull request #${text(issue.number)}`, error);
    }
  }
  const number = Number(pull.number);
  if (!Number.isInteger(number) || number <= 0) return { ok: false, reason: 'bad-event', message: `the ${input.eventName} event has no pull request number`, retryable: false };
  const head = text(record(pull.head).ref);
  // A fork can name its branch loop/…: only a branch of this repository is one of the loop's.
  const headRepository = text(record(record(pull.head).repo).full_name);
  if (headRepository !== input.repository) return ignored(`pull request #${number} comes from ${plainLine(headRepository, 100) || 'an unknown repository'}, not ${input.repository}`);
  if (!input.branchPrefixes.some((prefix) => head.startsWith(prefix))) {
    return ignored(`pull request #${number} (branch ${plainLine(head, 100) || 'unknown'}) is not one of loop-runtime's (${input.branchPrefixes.join(', ')})`);
  }
  const said = input.eventName === 'issue_comment' ? record(input.event.comment) : record(input.event.review);
  const fields = { number, title: text(pull.title), url: text(pull.html_url), head_branch: head, event: input.eventName, review_state: text(said.state) || undefined, author: text(record(said.user).login) };
  return {
    ok: true,
    item: { key: `pr#${number}`, title: plainLine(text(pull.title) || `pull request ${number}`, TITLE_MAX), untrustedDetail: detailOf(fields, text(said.body), input.redact) },
    note: `github-event: ${input.eventName} on #${number}`,
  };
}
