import { describe, expect, it } from 'vitest';
import { MockBackend } from '../../../backends/mock/index.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { MemoryDelivery, MemoryDeliveryStore } from '../../adapters/delivery/memory-delivery.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { FixedClock } from '../../testing/fixed-clock.js';
import { buildPlan } from '../plan/build-plan.js';
import type { AgentBackend, AgentRequest, AgentResult } from '../ports/index.js';
import { LoopEngine } from './loop-engine.js';

const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'], delivery: { mode: 'pull-request' } } });

/** The mock, with triage reporting a second item after mock#1. */
class TwoItemBackend implements AgentBackend {
  readonly specificationVersion = 'agent-backend-v2' as const;
  readonly name = 'mock';
  readonly inner = new MockBackend();
  async run(request: AgentRequest): Promise<AgentResult> {
    const result = await this.inner.run(request);
    if (result.ok && result.role === 'triage' && result.output.decision === 'act') {
      const first = result.output.items[0]!;
      return { ...result, output: { ...result.output, items: [first, { ...first, key: 'mock#2', title: 'Another tidy-up' }] } };
    }
    return result;
  }
}

function engineOver(store: MemoryDeliveryStore, backend: AgentBackend = new MockBackend()) {
  const clock = new FixedClock('2026-05-01T10:00:00Z', 1000);
  const delivery = new MemoryDelivery({ delivery: plan.delivery, clock, store });
  return new LoopEngine(plan, { ...createMemoryPorts({ plan, clock, commands: {} }), backend, delivery });
}

describe('an item with an open proposal is not proposed again', () => {
  it('the next tick reports instead of running the implementer while the pull request is open', async () => {
    const store = new MemoryDeliveryStore();
    expect(await engineOver(store).tick()).toMatchObject({ kind: 'proposed', delivery: { kind: 'pull-request' } });
    const backend = new MockBackend();
    const second = await engineOver(store, backend).tick();
    expect(second).toMatchObject({ kind: 'report', degraded: true, degradedReason: 'every item has used its attempts or has an open proposal (mock#1)' });
    expect(backend.calls.map((call) => call.role)).toEqual(['triage']);
    expect(store.pullRequests).toHaveLength(1);
  });

  it('acts on the next item instead', async () => {
    const store = new MemoryDeliveryStore();
    await engineOver(store).tick();
    const backend = new TwoItemBackend();
    const result = await engineOver(store, backend).tick();
    expect(result).toMatchObject({ kind: 'proposed', item: { key: 'mock#2' } });
    // The item is named in the body, quoted; the title says what changed (change-message.ts).
    expect(store.pullRequests.map((pull) => pull.body)).toEqual([expect.stringContaining('reported as `Tidy'), expect.stringContaining('reported as `Another tidy-up')]);
  });

  it('the twin: once the ledger records the change merged, the item may be proposed again', async () => {
    const store = new MemoryDeliveryStore();
    await engineOver(store).tick();
    const ledger = JSON.parse(store.ledgerText!) as { deliveries: Array<{ kind: string }> };
    ledger.deliveries[0]!.kind = 'merged';
    store.ledgerText = JSON.stringify(ledger);
    const backend = new MockBackend();
    await engineOver(store, backend).tick();
    expect(backend.calls.map((call) => call.role)).toContain('implement');
  });
});
