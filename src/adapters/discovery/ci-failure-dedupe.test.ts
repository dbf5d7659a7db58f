/**
 * One key per CI failure across both ci-sweeper paths: the real engine, memory ports, pull-request delivery into one
 * memory store. The scheduled tick's item comes from ci-sweeper's probe output as `gh run list` prints it,
 * interpreted by the real rules (interpret-probe.ts); the event tick's item from the key function the `workflow_run`
 * event uses (github-event.ts calls the same `ciFailureKeys`). Triage is the mock, answering as a model reading its
 * prompt does: it names the first item the probes found, by key only.
 */
import { describe, expect, it } from 'vitest';
import { MockBackend } from '../../../backends/mock/index.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { LoopEngine } from '../../core/engine/loop-engine.js';
import { buildPlan } from '../../core/plan/build-plan.js';
import type { AgentBackend, AgentRequest, AgentResult, WorkItem } from '../../core/ports/index.js';
import { ciFailureKeys } from '../../core/schedule/ci-failure-key.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { FixedClock } from '../../testing/fixed-clock.js';
import { MemoryDelivery, MemoryDeliveryStore } from '../delivery/memory-delivery.js';
import { EventDiscovery, pinTriageToItem, withEventProbe } from './event-discovery.js';
import { MemoryDiscovery } from './memory-discovery.js';

const PROBE = 'failing-ci-runs';
const plan = buildPlan(dailyTriagePattern, {
  level: 'L2',
  overrides: { verify: ['npm test'], delivery: { mode: 'pull-request' }, probes: [{ name: PROBE, command: '(scripted)', found: 'json-entries', timeoutSeconds: 60 }] },
});

/** A run as `gh run list --json databaseId,displayTitle,headBranch,url,conclusion,workflowName` prints it. */
const ghRun = (id: number, workflow = 'CI', branch = 'main') => ({ databaseId: id, displayTitle: 'Fix the login form', headBranch: branch, url: `https://github.com/acme/demo/actions/runs/${id}`, conclusion: 'failure', workflowName: workflow });

/** The `workflow_run` event's item, keyed as github-event.ts keys it. */
const eventItem = (id: number, workflow = 'CI', branch = 'main'): WorkItem => ({ ...ciFailureKeys({ workflow, branch, runId: id }), title: `${workflow} failed on ${branch} (run ${id})`, untrustedDetail: `{"id":${id}}` });

/** The mock, answering with the first probed item's key and title (a parsed model answer carries nothing else). */
class NamesFirstFound implements AgentBackend {
  readonly specificationVersion = 'agent-backend-v2' as const;
  readonly name = 'mock';
  readonly inner = new MockBackend();
  async run(request: AgentRequest): Promise<AgentResult> {
    const result = await this.inner.run(request);
    const found = request.role === 'triage' ? request.discovered?.[0] : undefined;
    if (!found || !result.ok || result.role !== 'triage') return result;
    return { ...result, output: { ...result.output, items: [{ key: found.key, title: found.title, paths: ['src/example.ts'] }] } };
  }
}

function ports(store: MemoryDeliveryStore, backend: AgentBackend) {
  const clock = new FixedClock('2026-11-27T10:00:00Z', 1000);
  return { ...createMemoryPorts({ plan, clock, commands: {} }), backend, delivery: new MemoryDelivery({ delivery: plan.delivery, clock, store }) };
}

function scheduledTick(store: MemoryDeliveryStore, runs: object[]) {
  const backend = new NamesFirstFound();
  const discovery = new MemoryDiscovery({ runs: { [PROBE]: { stdout: JSON.stringify(runs) } } });
  return { engine: new LoopEngine(plan, { ...ports(store, backend), discovery }), backend: backend.inner };
}

function eventTick(store: MemoryDeliveryStore, item: WorkItem) {
  const backend = new MockBackend();
  const discovery = new EventDiscovery(item, `github-event: ${item.title}`);
  return { engine: new LoopEngine(withEventProbe(plan), { ...ports(store, pinTriageToItem(backend, item)), discovery }), backend };
}

const implemented = (backend: MockBackend) => backend.calls.filter((call) => call.role === 'implement').length;

/** A proposal recorded before the key changed: a pull request for run `id`, under `ci-run#<id>`. */
function legacyProposal(store: MemoryDeliveryStore, id: number): void {
  const entry = { key: `daily-triage:ci-run#${id}`, pattern: plan.pattern.id, itemKey: `ci-run#${id}`, branch: `loop/daily-triage/ci-run-${id}`, kind: 'pull-request', url: 'https://github.com/acme/demo/pull/9', at: '2026-11-26T10:00:00Z' };
  store.ledgerText = JSON.stringify({ version: 1, deliveries: [entry] });
}

describe('one key per CI failure, whichever path saw it first', () => {
  it("the probe's failing run and the workflow_run event are one item: ci:<workflow>@<branch>, the run's old key kept", async () => {
    const found = await new MemoryDiscovery({ runs: { [PROBE]: { stdout: JSON.stringify([ghRun(4242), ghRun(4250, 'Lint', 'release')]) } } }).discover(plan);
    expect(found.items.map(({ key, formerKeys }) => ({ key, formerKeys }))).toEqual([
      { key: 'ci:CI@main', formerKeys: ['ci-run#4242'] },
      { key: 'ci:Lint@release', formerKeys: ['ci-run#4250'] },
    ]);
    expect(eventItem(4243)).toMatchObject({ key: 'ci:CI@main', formerKeys: ['ci-run#4243'] });
  });

  /** A store holding the scheduled tick's proposal for CI failing on main. */
  async function afterScheduledProposal(): Promise<MemoryDeliveryStore> {
    const store = new MemoryDeliveryStore();
    expect(await scheduledTick(store, [ghRun(4242)]).engine.tick()).toMatchObject({ kind: 'proposed', item: { key: 'ci:CI@main' } });
    return store;
  }

  it('a scheduled proposal, then the event for the same failure: no second proposal, the reason said', async () => {
    const store = await afterScheduledProposal();
    const event = eventTick(store, eventItem(4243));
    expect(await event.engine.tick()).toMatchObject({ kind: 'report', degraded: true, degradedReason: 'every item has used its attempts or has an open proposal (ci:CI@main)' });
    expect(implemented(event.backend)).toBe(0);
    expect(store.pullRequests).toHaveLength(1);
  });

  it.each([
    ['another branch', 'CI', 'release'],
    ['another workflow', 'Lint', 'main'],
  ])('the twin: the event for %s is its own item and ticks', async (_, workflow, branch) => {
    const store = await afterScheduledProposal();
    const event = eventTick(store, eventItem(4244, workflow, branch));
    expect(await event.engine.tick()).toMatchObject({ kind: 'proposed', item: { key: `ci:${workflow}@${branch}` } });
    expect(implemented(event.backend)).toBe(1);
    expect(store.pullRequests).toHaveLength(2);
  });

  it('the event first, then the scheduled tick for the same failure: the probe finds the proposal open', async () => {
    const store = new MemoryDeliveryStore();
    expect(await eventTick(store, eventItem(4242)).engine.tick()).toMatchObject({ kind: 'proposed', item: { key: 'ci:CI@main' } });
    const scheduled = scheduledTick(store, [ghRun(4242)]);
    expect(await scheduled.engine.tick()).toMatchObject({ kind: 'report', degradedReason: 'every item has used its attempts or has an open proposal (ci:CI@main)' });
    expect(implemented(scheduled.backend)).toBe(0);
  });
});

describe('a proposal stored under the old key (ci-run#<id>) still dedupes', () => {
  it('the scheduled tick and the event for that run report the open proposal', async () => {
    const store = new MemoryDeliveryStore();
    legacyProposal(store, 4242);
    const scheduled = scheduledTick(store, [ghRun(4242)]);
    expect(await scheduled.engine.tick()).toMatchObject({ kind: 'report', degradedReason: 'every item has used its attempts or has an open proposal (ci:CI@main)' });
    expect(implemented(scheduled.backend)).toBe(0);
    // A re-run of the same run (run_attempt 2) arrives as an event with the same run id.
    const event = eventTick(store, eventItem(4242));
    expect(await event.engine.tick()).toMatchObject({ kind: 'report', degradedReason: 'every item has used its attempts or has an open proposal (ci:CI@main)' });
    expect(store.pullRequests).toHaveLength(0);
  });

  it('the twin: an old key for another run does not hold this failure back', async () => {
    const store = new MemoryDeliveryStore();
    legacyProposal(store, 4100);
    const scheduled = scheduledTick(store, [ghRun(4242)]);
    expect(await scheduled.engine.tick()).toMatchObject({ kind: 'proposed', item: { key: 'ci:CI@main' } });
    expect(implemented(scheduled.backend)).toBe(1);
  });
});
