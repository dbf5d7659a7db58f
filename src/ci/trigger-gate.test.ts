import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../../test/fakes/fake-github-server.js';
import { checkTrigger, type TriggerGateInput } from './trigger-gate.js';

let github: FakeGitHub;
beforeAll(async () => {
  github = await startFakeGitHub('acme/demo');
  github.permissions.set('maintainer', 'write');
  github.permissions.set('owner', 'admin');
  github.permissions.set('reader', 'read');
  github.permissions.set('triager', 'triage');
  github.permissions.set('renovate[bot]', 'write');
});
afterAll(() => github.close());

const gate = (overrides: Partial<TriggerGateInput>) => checkTrigger({ event: { sender: { type: 'User' } }, actor: 'maintainer', repository: 'acme/demo', token: 't', apiUrl: github.url, ...overrides });

describe('checkTrigger, against the fake GitHub API', () => {
  it('allows write and admin; skips read, triage and non-collaborators', async () => {
    expect(await gate({})).toEqual({ allowed: true, actor: 'maintainer', permission: 'write' });
    expect(await gate({ actor: 'owner' })).toMatchObject({ allowed: true, permission: 'admin' });
    expect(await gate({ actor: 'reader' })).toMatchObject({ allowed: false, reason: 'permission' });
    expect(await gate({ actor: 'triager' })).toMatchObject({ allowed: false, reason: 'permission' });
    expect(await gate({ actor: 'stranger' })).toMatchObject({ allowed: false, reason: 'permission', message: 'stranger is not a collaborator on acme/demo' });
  });

  it('skips a bot not on the allowlist, allows the same bot when listed', async () => {
    const event = { sender: { type: 'Bot' } };
    expect(await gate({ actor: 'renovate[bot]', event })).toMatchObject({ allowed: false, reason: 'bot' });
    expect(await gate({ actor: 'renovate[bot]', event, allowBots: ['renovate[bot]'] })).toMatchObject({ allowed: true, permission: 'write' });
  });

  it('skips a pull request from a fork even for a writer; allows one from the repository itself', async () => {
    const fork = { pull_request: { head: { repo: { fork: true, full_name: 'mallory/demo' } } } };
    const own = { pull_request: { head: { repo: { fork: false, full_name: 'acme/demo' } } } };
    expect(await gate({ event: fork })).toMatchObject({ allowed: false, reason: 'fork' });
    expect(await gate({ event: own })).toMatchObject({ allowed: true });
  });

  it("skips a workflow run of a fork's pull request (its CI failure must not tick ci-sweeper); allows the repository's own", async () => {
    const fork = { workflow_run: { conclusion: 'failure', head_repository: { fork: true, full_name: 'mallory/demo' } } };
    const own = { workflow_run: { conclusion: 'failure', head_repository: { fork: false, full_name: 'acme/demo' } } };
    expect(await gate({ event: fork })).toMatchObject({ allowed: false, reason: 'fork', message: expect.stringContaining('the workflow run comes from a fork (mallory/demo)') });
    expect(await gate({ event: own })).toMatchObject({ allowed: true });
  });

  it('is closed by default: no actor, no token or an API that does not answer is a skip', async () => {
    expect(await gate({ actor: undefined })).toMatchObject({ allowed: false, reason: 'no-actor' });
    expect(await gate({ token: undefined })).toMatchObject({ allowed: false, reason: 'api-error' });
    const closed = await startFakeGitHub('acme/demo');
    const url = closed.url;
    await closed.close();
    expect(await gate({ apiUrl: url })).toMatchObject({ allowed: false, reason: 'api-error' });
  });
});
