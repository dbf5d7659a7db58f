import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { GitDelivery } from '../src/adapters/delivery/git-delivery.js';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import type { Pattern } from '../src/core/config/schemas.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { addBareRemote, cleanupTempDirs, makeRepo } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const pattern = { id: 'ci-sweeper', name: 'CI Sweeper', file: 'ci-sweeper.md', goal: 'Keep CI green by fixing failures', cadence: '6h', risk: 'low', tools: ['claude-code'], skills: ['x'], state: 'STATE.md', phases: ['a', 'b'], human_gates: ['x'] } as Pattern;

async function body(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text ? JSON.parse(text) : null;
}

describe('GitDelivery over the REST API (no gh on PATH)', () => {
  it('opens a pull request with the token and merges only when asked', async () => {
    const calls: Array<{ method: string; url: string; auth: string | undefined; body: unknown }> = [];
    const server = createServer(async (request, response) => {
      calls.push({ method: request.method!, url: request.url!, auth: request.headers.authorization, body: await body(request) });
      response.setHeader('content-type', 'application/json');
      if (request.method === 'GET') return response.end('[{"head":{"ref":"loop/ci-sweeper/other"}},{"head":{"ref":"feature/x"}}]');
      if (request.method === 'POST') return response.writeHead(201).end('{"html_url":"https://github.com/acme/demo/pull/9","number":9}');
      return response.end('{"merged":true}');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const root = await makeRepo();
      await addBareRemote(root);
      const clock = new FixedClock('2026-05-01T10:00:00Z', 1000);
      const plan = buildPlan(pattern, { level: 'L3', overrides: { delivery: { mode: 'pull-request' } } });
      const workspace = new GitWorkspace({ root, patternId: 'ci-sweeper', clock });
      const prepared = await workspace.prepare({ tickId: 't1', patternId: 'ci-sweeper', item: { key: 'ci#1', title: 'Fix CI' }, branchPrefix: plan.delivery.branchPrefix, baseBranch: null });
      if (!prepared.ok) throw new Error(prepared.message);
      await workspace.files(prepared.handle).write('docs/fix.md', 'fixed\n');
      // commit() records what changes() reported, so the gate's view comes first.
      expect((await workspace.changes(prepared.handle)).ok).toBe(true);
      const commit = await workspace.commit(prepared.handle, { message: 'fix', trailers: {}, author: plan.delivery.author });
      if (!commit.ok) throw new Error(commit.message);
      const env = { PATH: '/nonexistent', GITHUB_TOKEN: 'test-token', GITHUB_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, GITHUB_REPOSITORY: 'acme/demo' };
      const delivery = new GitDelivery({ root, delivery: plan.delivery, clock, env });
      const result = await delivery.deliver({ handle: prepared.handle, commit: commit.commit, patternId: 'ci-sweeper', itemKey: 'ci#1', dedupeKey: 'ci-sweeper:ci#1', title: 'CI Sweeper: Fix CI', body: 'evidence', merge: true });
      expect(result).toEqual({ ok: true, kind: 'merged', branch: prepared.handle.branch, url: 'https://github.com/acme/demo/pull/9' });
      expect(calls.map((call) => `${call.method} ${call.url}`)).toEqual(['GET /repos/acme/demo/pulls?state=open&per_page=100', 'POST /repos/acme/demo/pulls', 'PUT /repos/acme/demo/pulls/9/merge']);
      expect(calls.every((call) => call.auth === 'Bearer test-token')).toBe(true);
      expect(calls[1]!.body).toEqual({ head: prepared.handle.branch, base: 'main', title: 'CI Sweeper: Fix CI', body: 'evidence', draft: false });
      expect(calls[2]!.body).toEqual({ merge_method: 'squash' });
    } finally {
      server.close();
    }
  });
});
