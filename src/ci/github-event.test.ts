/**
 * The event as the work item, against the fake GitHub API on 127.0.0.1 (test/fakes/fake-github-server.ts), with the
 * runtime's redactor over an environment that holds a secret value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactorFor } from '../adapters/redaction/redaction.js';
import { startFakeGitHub, type FakeGitHub } from '../../test/fakes/fake-github-server.js';
import { eventWorkItem, type EventItemInput } from './github-event.js';

const SECRET = 'sk-live-0123456789abcdefghijklmnop';
const GHP = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
let github: FakeGitHub;

beforeAll(async () => {
  github = await startFakeGitHub('acme/demo');
  const lines = Array.from({ length: 250 }, (_, index) => `2026-11-27T10:00:00Z line ${index + 1}\tof the build`);
  lines.push(`\u001b[31mFAIL\u001b[0m test/login.test.ts: expected 200, got 500 (token ${GHP}, key ${SECRET})`);
  github.runJobs.set(901, [
    { id: 11, name: 'build', conclusion: 'success', log: 'green log line' },
    { id: 12, name: 'test', conclusion: 'failure', log: `${lines.join('\n')}\n` },
  ]);
  github.seed(['loop/ci-sweeper/fix-login', 'feature/by-a-human']);
  github.pulls.push({ number: 3, head: 'loop/ci-sweeper/looks-like-ours', base: 'main', title: 'from a fork', body: '', draft: false, state: 'open', merged: false, headRepository: 'mallory/demo' });
});
afterAll(async () => {
  await github?.close();
});

const input = (eventName: string, event: Record<string, unknown>): EventItemInput => ({
  eventName,
  event,
  repository: 'acme/demo',
  token: 'test-token',
  apiUrl: github.url,
  branchPrefixes: ['loop/'],
  redact: redactorFor({ OPENAI_API_KEY: SECRET }, null),
});

const failedRun = (id: number, conclusion = 'failure') => ({
  action: 'completed',
  workflow_run: { id, name: 'CI', head_branch: 'main', head_sha: 'abc123', html_url: `https://github.com/acme/demo/actions/runs/${id}`, conclusion, run_attempt: 1 },
});

describe('eventWorkItem', () => {
  it('a failed workflow_run: one item per workflow and branch, the failed job log tail redacted as untrusted detail', async () => {
    const result = await eventWorkItem(input('workflow_run', failedRun(901)));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.item.key).toBe('ci:CI@main');
    // The key the scheduled probe gives the same failure; the run's old key (ci-run#<id>) still matches a stored proposal.
    expect(result.item.formerKeys).toEqual(['ci-run#901']);
    expect(result.item.title).toBe('CI failed on main (run 901)');
    expect(result.note).toBe('github-event: workflow_run 901 (CI@main) failed');
    const detail = result.item.untrustedDetail ?? '';
    expect(detail).toContain('"id":901');
    expect(detail).toContain('"head_sha":"abc123"');
    expect(detail).toContain('"url":"https://github.com/acme/demo/actions/runs/901"');
    expect(detail).toContain('Failed job log (last lines, untrusted):\n--- job test ---');
    expect(detail).toContain('FAIL test/login.test.ts: expected 200, got 500');
    expect(detail).toContain('line 250 of the build');
    expect(detail).not.toContain('line 51 of the build'); // the last 200 lines of 251
    expect(detail).toContain('line 52 of the build');
    expect(detail).not.toContain('green log line'); // only failed jobs
    expect(detail).not.toContain(GHP);
    expect(detail).not.toContain(SECRET);
    expect(detail).not.toContain('\u001b');
    const paths = github.requests.map((request) => request.url.split('?')[0]);
    expect(paths).toContain('/repos/acme/demo/actions/runs/901/jobs');
    expect(paths).toContain('/repos/acme/demo/actions/jobs/12/logs');
    expect(paths).not.toContain('/repos/acme/demo/actions/jobs/11/logs');
  });

  it('a run that did not fail is ignored without a call; a run GitHub cannot list is an api-error (data, not a throw)', async () => {
    const before = github.requests.length;
    expect(await eventWorkItem(input('workflow_run', failedRun(902, 'success')))).toMatchObject({ ok: false, reason: 'ignored', message: 'workflow run 902 concluded success, not failure' });
    expect(github.requests.length).toBe(before);
    const broken = await eventWorkItem({ ...input('workflow_run', failedRun(903)), apiUrl: `${github.url}/nowhere` });
    expect(broken).toMatchObject({ ok: false, reason: 'api-error', retryable: false, detail: { status: 404 } });
  });

  it('an issues event: that issue, its body as untrusted detail (redacted)', async () => {
    const event = { action: 'labeled', issue: { number: 7, title: 'Login fails\non Safari [skip ci]', html_url: 'https://github.com/acme/demo/issues/7', body: `Steps… my key is ${SECRET}`, labels: [{ name: 'bug' }] } };
    const result = await eventWorkItem(input('issues', event));
    expect(result).toMatchObject({ ok: true, item: { key: 'issue#7', title: 'Login fails on Safari (skip ci)' }, note: 'github-event: issues labeled #7' });
    if (!result.ok) return;
    expect(result.item.untrustedDetail).toContain('Steps… my key is');
    expect(result.item.untrustedDetail).not.toContain(SECRET);
    expect(result.item.untrustedDetail).toContain('"labels":["bug"]');
  });

  it("a comment on one of the loop's pull requests is that pull request; on a human's pull request or an issue it is ignored", async () => {
    const comment = (number: number) => ({ action: 'created', issue: { number, pull_request: { url: 'x' } }, comment: { body: 'please rebase', user: { login: 'maintainer' } } });
    expect(await eventWorkItem(input('issue_comment', comment(1)))).toMatchObject({ ok: true, item: { key: 'pr#1', title: 'seeded loop/ci-sweeper/fix-login' }, note: 'github-event: issue_comment on #1' });
    expect(await eventWorkItem(input('issue_comment', comment(2)))).toMatchObject({ ok: false, reason: 'ignored', message: expect.stringContaining("branch feature/by-a-human) is not one of loop-runtime's") });
    expect(await eventWorkItem(input('issue_comment', { action: 'created', issue: { number: 9 }, comment: { body: 'hi' } }))).toMatchObject({ ok: false, reason: 'ignored' });
    // A fork's branch named like a loop's is not the loop's.
    expect(await eventWorkItem(input('issue_comment', comment(3)))).toMatchObject({ ok: false, reason: 'ignored', message: 'pull request #3 comes from mallory/demo, not acme/demo' });
    const review = { action: 'submitted', pull_request: { number: 1, title: 'Fix login', head: { ref: 'loop/ci-sweeper/fix-login', repo: { full_name: 'acme/demo' } } }, review: { state: 'changes_requested', body: 'use a constant' } };
    const reviewed = await eventWorkItem(input('pull_request_review', review));
    expect(reviewed).toMatchObject({ ok: true, item: { key: 'pr#1', title: 'Fix login' } });
    if (reviewed.ok) expect(reviewed.item.untrustedDetail).toContain('use a constant');
  });

  it('schedule and workflow_dispatch carry no item', async () => {
    expect(await eventWorkItem(input('schedule', {}))).toMatchObject({ ok: false, reason: 'ignored' });
  });
});
