import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MockBackend, type MockBackendOptions } from '../backends/mock/index.js';
import type { Pattern } from '../src/core/config/schemas.js';
import { createMemoryPorts } from '../src/testing/create-memory-ports.js';
import { LoopEngine } from '../src/core/engine/loop-engine.js';
import type { AgentBackend, AgentRequest, AgentResult } from '../src/core/ports/index.js';
import { GitDelivery } from '../src/adapters/delivery/git-delivery.js';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import type { DeliveryMode } from '../src/core/plan/execution-plan.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { parseManifest } from '../src/core/workspace/worktree-manifest.js';
import { addBareRemote, cleanupTempDirs, fakeGh, makeRepo, sh, writeFiles } from './git-fixtures.js';
import { dailyTriagePattern } from './fixtures/patterns.js';
import { worktreesDirFor } from '../src/adapters/workspace/worktrees-location.js';

afterAll(cleanupTempDirs);

// No cost block or week-one level: the git tests want the catalogue-free defaults.
const { cost: _cost, week_one_mode: _level, ...pattern } = dailyTriagePattern;

interface Setup {
  root: string;
  mode?: DeliveryMode;
  backend?: AgentBackend;
  mock?: MockBackendOptions;
  env?: Record<string, string | undefined>;
  caps?: { maxOpenPullRequests?: number; maxPullRequestsPerHour?: number };
  clock?: FixedClock;
}

function engineFor(setup: Setup) {
  const clock = setup.clock ?? new FixedClock('2026-05-01T10:00:00Z', 1000);
  const plan = buildPlan(pattern, { level: 'L2', overrides: { verify: ['npm test'], delivery: { mode: setup.mode ?? 'local', ...setup.caps } } });
  const workspace = new GitWorkspace({ root: setup.root, patternId: plan.pattern.id, clock });
  const delivery = new GitDelivery({ root: setup.root, delivery: plan.delivery, clock, env: setup.env ?? { PATH: '/nonexistent' } });
  const engine = new LoopEngine(plan, {
    ...createMemoryPorts({ plan, clock, commands: {} }),
    backend: setup.backend ?? new MockBackend(setup.mock),
    workspace,
    delivery,
  });
  return { engine, plan, workspace, clock };
}

/** The mock backend, plus a side effect at the start of the implementer (a human pushing to main mid-tick). */
class MidTickBackend implements AgentBackend {
  readonly specificationVersion = 'agent-backend-v2' as const;
  readonly name = 'mid-tick';
  private readonly inner = new MockBackend();
  constructor(private readonly during: () => Promise<void>) {}
  async run(request: AgentRequest): Promise<AgentResult> {
    if (request.role === 'implement') await this.during();
    return this.inner.run(request);
  }
}

const remoteBranches = (bare: string) => sh(bare, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/']).split('\n').filter(Boolean).sort();

describe('GitDelivery through the engine', () => {
  it('keeps the branch locally by default, with a commit whose trailers name pattern, tick and tokens', async () => {
    const root = await makeRepo();
    const { engine } = engineFor({ root });
    const result = await engine.tick();
    expect(result.kind).toBe('proposed');
    if (result.kind !== 'proposed') return;
    expect(result.delivery).toEqual({ kind: 'local', branch: result.commit.branch });
    const body = sh(root, ['log', '-1', '--format=%B', result.commit.branch]);
    expect(body).toContain(`Loop-Pattern: daily-triage`);
    expect(body).toContain(`Loop-Tick: ${result.tickId}`);
    expect(body).toMatch(/Loop-Tokens: \d+/);
    expect(sh(root, ['show', '--name-only', '--format=', result.commit.branch]).trim()).toBe('src/example.ts');
  });

  it('pushes to a bare remote without force', async () => {
    const root = await makeRepo();
    const bare = await addBareRemote(root);
    const { engine } = engineFor({ root, mode: 'push' });
    const result = await engine.tick();
    expect(result.kind).toBe('proposed');
    if (result.kind !== 'proposed') return;
    expect(result.delivery?.kind).toBe('pushed');
    expect(remoteBranches(bare)).toEqual([result.commit.branch, 'main'].sort());
    expect(sh(bare, ['rev-parse', result.commit.branch]).trim()).toBe(result.commit.sha);
  });

  it('opens one draft pull request through gh; the next tick does not propose the item again while its pull request is open', async () => {
    const root = await makeRepo();
    const bare = await addBareRemote(root);
    const gh = await fakeGh();
    const env = { PATH: `${gh.bin}:${process.env.PATH}` };
    const first = await engineFor({ root, mode: 'pull-request', env }).engine.tick();
    expect(first.kind).toBe('proposed');
    if (first.kind !== 'proposed') return;
    expect(first.delivery).toEqual({ kind: 'pull-request', branch: first.commit.branch, url: 'https://github.com/acme/demo/pull/1' });
    const creates = (await gh.calls()).filter((args) => args[1] === 'create');
    expect(creates).toHaveLength(1);
    expect(creates[0]).toEqual(expect.arrayContaining(['--head', first.commit.branch, '--base', 'main', '--draft']));

    const backend = new MockBackend();
    const second = await engineFor({ root, mode: 'pull-request', env, backend, clock: new FixedClock('2026-05-01T11:30:00Z', 1000) }).engine.tick();
    // The open pull request is the item's proposal: no implementer, no second branch, no second PR.
    expect(second).toMatchObject({ kind: 'report', degraded: true, degradedReason: expect.stringContaining('open proposal (mock#1)') });
    expect(backend.calls.map((call) => call.role)).toEqual(['triage']);
    expect((await gh.calls()).filter((args) => args[1] === 'create')).toHaveLength(1);
    expect(remoteBranches(bare)).toEqual([first.commit.branch, 'main'].sort());
    const ledger = JSON.parse(await readFile(join(root, '.loop-runtime', 'deliveries.json'), 'utf8'));
    expect(ledger.deliveries).toEqual([expect.objectContaining({ key: 'daily-triage:mock#1', kind: 'pull-request' })]);
  });

  it('does not report an item delivered while a crashed delivery of it is pending; after the lease timeout the tick delivers it', async () => {
    const root = await makeRepo();
    const bare = await addBareRemote(root);
    const clock = new FixedClock('2026-05-01T10:00:00Z', 1000);
    const crashed = { key: 'daily-triage:mock#1', pattern: 'daily-triage', itemKey: 'mock#1', branch: 'loop/daily-triage/crashed', kind: 'pending', commit: 'c'.repeat(40), at: '2026-05-01T10:00:00.000Z' };
    await writeFiles(root, { '.loop-runtime/deliveries.json': JSON.stringify({ version: 1, deliveries: [crashed] }) });

    const fresh = await engineFor({ root, mode: 'push', clock }).engine.tick();
    expect(fresh.kind).toBe('failed');
    if (fresh.kind !== 'failed') return;
    expect(fresh).toMatchObject({ phase: 'deliver', retryable: true });
    expect(fresh.message).toMatch(/has not finished; it may still be pushing, so nothing was pushed/);
    expect(remoteBranches(bare)).toEqual(['main']);

    clock.advance(35 * 60_000); // the default lease timeout: tick timeout 30 min + 5 min margin
    const later = await engineFor({ root, mode: 'push', clock }).engine.tick();
    expect(later.kind).toBe('proposed');
    if (later.kind !== 'proposed') return;
    expect(later.delivery).toEqual({ kind: 'pushed', branch: later.commit.branch });
    expect(remoteBranches(bare)).toEqual([later.commit.branch, 'main'].sort());
    const ledger = JSON.parse(await readFile(join(root, '.loop-runtime', 'deliveries.json'), 'utf8'));
    expect(ledger.deliveries).toEqual([expect.objectContaining({ key: 'daily-triage:mock#1', kind: 'pushed', branch: later.commit.branch })]);
  });

  it('reconciles a crash between push and pull request through gh: the pushed branch gets its pull request, nothing is pushed again', async () => {
    const root = await makeRepo();
    const bare = await addBareRemote(root);
    const gh = await fakeGh();
    const env = { PATH: `${gh.bin}:${process.env.PATH}` };
    sh(root, ['push', '--quiet', 'origin', 'main:refs/heads/loop/daily-triage/crashed']);
    const crashed = { key: 'daily-triage:mock#1', pattern: 'daily-triage', itemKey: 'mock#1', branch: 'loop/daily-triage/crashed', kind: 'pending', at: '2026-05-01T09:00:00.000Z' };
    await writeFiles(root, { '.loop-runtime/deliveries.json': JSON.stringify({ version: 1, deliveries: [crashed] }) });
    const result = await engineFor({ root, mode: 'pull-request', env }).engine.tick();
    expect(result.kind).toBe('proposed');
    if (result.kind !== 'proposed') return;
    expect(result.delivery).toEqual({ kind: 'pull-request', branch: 'loop/daily-triage/crashed', url: 'https://github.com/acme/demo/pull/1' });
    const calls = await gh.calls();
    expect(calls).toContainEqual(['pr', 'list', '--head', 'loop/daily-triage/crashed', '--state', 'all', '--limit', '1', '--json', 'url,number,state']);
    expect(calls.filter((args) => args[1] === 'create')).toEqual([expect.arrayContaining(['--head', 'loop/daily-triage/crashed'])]);
    expect(remoteBranches(bare)).toEqual(['loop/daily-triage/crashed', 'main']);
  });

  it('stops the tick with STATE_FAILED on a corrupt deliveries.json instead of reading it as empty, and pushes nothing', async () => {
    const root = await makeRepo();
    const bare = await addBareRemote(root);
    await writeFiles(root, { '.loop-runtime/deliveries.json': '{"version":1,"deliveries":[{"key":"daily-triage:mock#1",' });
    const tick = engineFor({ root, mode: 'push' }).engine.tick();
    await expect(tick).rejects.toMatchObject({ name: 'LoopRuntimeError', code: 'STATE_FAILED' });
    await expect(tick).rejects.toThrow(/deliveries\.json cannot be read: it is not valid JSON[\s\S]*To fix: move/);
    expect(remoteBranches(bare)).toEqual(['main']);
  });

  it('caps pull requests per hour: the next item is rate-limited and nothing is pushed for it', async () => {
    const root = await makeRepo();
    const bare = await addBareRemote(root);
    const gh = await fakeGh();
    const env = { PATH: `${gh.bin}:${process.env.PATH}` };
    const caps = { maxPullRequestsPerHour: 1 };
    const first = await engineFor({ root, mode: 'pull-request', env, caps, mock: { itemKey: 'issue#1' } }).engine.tick();
    expect(first.kind).toBe('proposed');
    const second = await engineFor({ root, mode: 'pull-request', env, caps, mock: { itemKey: 'issue#2' } }).engine.tick();
    expect(second.kind).toBe('failed');
    if (second.kind !== 'failed') return;
    expect(second.message).toMatch(/in the last hour \(cap 1\)/);
    expect(remoteBranches(bare)).toHaveLength(2);
    expect((await gh.calls()).filter((args) => args[1] === 'create')).toHaveLength(1);
  });

  it('rebases onto a base that moved during the tick', async () => {
    const root = await makeRepo();
    const bare = await addBareRemote(root);
    const backend = new MidTickBackend(async () => {
      await writeFiles(root, { 'docs/human.md': 'a human commit during the tick\n' });
      sh(root, ['add', 'docs/human.md']);
      sh(root, ['commit', '--quiet', '-m', 'human work']);
      sh(root, ['push', '--quiet', 'origin', 'main']);
    });
    const result = await engineFor({ root, mode: 'push', backend }).engine.tick();
    expect(result.kind).toBe('proposed');
    if (result.kind !== 'proposed') return;
    const pushed = sh(bare, ['rev-parse', result.commit.branch]).trim();
    expect(sh(bare, ['merge-base', '--is-ancestor', 'main', pushed])).toBe('');
    expect(sh(bare, ['log', '--format=%s', pushed]).split('\n').filter(Boolean)).toEqual(['daily-triage: Appended a tidy-up comment to src/example.ts.', 'human work', 'initial']);
    expect(sh(bare, ['log', '-1', '--format=%an', 'main']).trim()).toBe('Test Human');
  });

  it('escalates naming the conflicting file when the moved base conflicts, and pushes nothing', async () => {
    const root = await makeRepo();
    const bare = await addBareRemote(root);
    const backend = new MidTickBackend(async () => {
      await writeFile(join(root, 'src/example.ts'), 'export const answer = 41; // a human changed this\n');
      sh(root, ['commit', '--quiet', '-am', 'human edit']);
      sh(root, ['push', '--quiet', 'origin', 'main']);
    });
    const result = await engineFor({ root, mode: 'push', backend }).engine.tick();
    expect(result.kind).toBe('escalated');
    if (result.kind !== 'escalated') return;
    expect(result.reason).toMatch(/conflicts in: src\/example\.ts/);
    expect(remoteBranches(bare)).toEqual(['main']);
    expect(existsSync(join(root, '.loop-runtime', 'deliveries.json')) && JSON.parse(await readFile(join(root, '.loop-runtime', 'deliveries.json'), 'utf8')).deliveries).toEqual([]);
  });

  it('escalates a denylisted path and keeps the worktree for a human', async () => {
    const root = await makeRepo();
    const { engine } = engineFor({ root, mock: { targetPath: '.env' } });
    const result = await engine.tick();
    expect(result.kind).toBe('escalated');
    if (result.kind !== 'escalated') return;
    expect(result.gate?.trigger).toBe('denylist');
    expect(result.changes).toEqual([{ path: '.env', status: 'added', binary: false }]);
    const manifest = parseManifest(await readFile(join(worktreesDirFor(root), 'manifest.json'), 'utf8'));
    const entry = manifest.worktrees[0]!;
    expect(entry).toMatchObject({ status: 'escalated', itemKey: 'mock#1' });
    expect(await readFile(resolve(root, entry.path, '.env'), 'utf8')).toContain('tidied by loop-runtime mock backend');
    expect(existsSync(join(root, '.env'))).toBe(false);
  });
});
