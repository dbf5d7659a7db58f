/**
 * An event tick is an ordinary tick with a pinned item: the real engine, memory ports, the mock backend held to the
 * event's item, pull-request delivery into one memory store. A burst of five failures of one workflow on one branch
 * (five runs, one item key) proposes once: the later ticks find the proposal open and report instead. The twin: a
 * failure on another branch is another item, proposed on its own.
 */
import { describe, expect, it } from 'vitest';
import { MockBackend } from '../../../backends/mock/index.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { LoopEngine } from '../../core/engine/loop-engine.js';
import { buildPlan } from '../../core/plan/build-plan.js';
import type { WorkItem } from '../../core/ports/index.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { FixedClock } from '../../testing/fixed-clock.js';
import { MemoryDelivery, MemoryDeliveryStore } from '../delivery/memory-delivery.js';
import { EventDiscovery, pinTriageToItem, withEventProbe } from './event-discovery.js';

// No probes of its own: the event still reaches triage (withEventProbe).
const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'], delivery: { mode: 'pull-request' }, probes: [] } });

const failure = (run: number, branch = 'main'): WorkItem => ({ key: `ci:CI@${branch}`, title: `CI failed on ${branch} (run ${run})`, untrustedDetail: `{"id":${run}}\n\nFailed job log (last lines, untrusted):\nFAIL` });

function eventTick(store: MemoryDeliveryStore, item: WorkItem, backend = new MockBackend()) {
  const clock = new FixedClock('2026-11-27T10:00:00Z', 1000);
  const delivery = new MemoryDelivery({ delivery: plan.delivery, clock, store });
  const ports = { ...createMemoryPorts({ plan, clock, commands: {} }), backend: pinTriageToItem(backend, item), delivery, discovery: new EventDiscovery(item, `github-event: ${item.title}`) };
  return { engine: new LoopEngine(withEventProbe(plan), ports), backend };
}

describe('the event as the work item', () => {
  it("triage sees exactly the event's item and the tick acts on it, not on the item the model named", async () => {
    const store = new MemoryDeliveryStore();
    const { engine, backend } = eventTick(store, failure(1));
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'proposed', item: { key: 'ci:CI@main', title: 'CI failed on main (run 1)' } });
    expect(result.steps.find((step) => step.phase === 'discovery')?.note).toBe('github-event: CI failed on main (run 1)');
    // The mock names its own item (mock#1); the implementer was handed the event's.
    expect(backend.calls.filter((call) => call.role !== 'triage').map((call) => call.itemKey)).toEqual(['ci:CI@main', 'ci:CI@main']);
  });

  it('a burst of five failures of one workflow on one branch proposes once; the rest report the open proposal', async () => {
    const store = new MemoryDeliveryStore();
    const kinds: string[] = [];
    let implementerCalls = 0;
    for (const run of [101, 102, 103, 104, 105]) {
      // Serial, as the workflow's concurrency group (cancel-in-progress: false) runs them.
      const { engine, backend } = eventTick(store, failure(run));
      const result = await engine.tick();
      kinds.push(result.kind);
      implementerCalls += backend.calls.filter((call) => call.role === 'implement').length;
      if (run > 101) expect(result).toMatchObject({ kind: 'report', degradedReason: 'every item has used its attempts or has an open proposal (ci:CI@main)' });
    }
    expect(kinds).toEqual(['proposed', 'report', 'report', 'report', 'report']);
    expect(implementerCalls).toBe(1);
    expect(store.pullRequests).toHaveLength(1);
    // The twin: another branch is another item, proposed while main's is open.
    expect(await eventTick(store, failure(106, 'release')).engine.tick()).toMatchObject({ kind: 'proposed', item: { key: 'ci:CI@release' } });
    expect(store.pullRequests).toHaveLength(2);
  });

  it('a triage no-op stays a no-op (the event does not force work)', async () => {
    const { engine } = eventTick(new MemoryDeliveryStore(), failure(7), new MockBackend({ scenarios: ['noop'] }));
    expect(await engine.tick()).toMatchObject({ kind: 'noop' });
  });
});
