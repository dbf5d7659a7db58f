import { describe, expect, it } from 'vitest';
import { MockBackend } from '../../../backends/mock/index.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { FixedClock } from '../../testing/fixed-clock.js';
import { LoopEngine } from './loop-engine.js';
import type { AgentBackend, AgentRequest, EngineEvent } from '../ports/index.js';

/** The mock, but each call first reports two retries through the request's `onProgress`, and remembers whether it had one. */
function retryingBackend(): AgentBackend & { sawProgress: boolean[] } {
  const mock = new MockBackend({ scenarios: ['noop'] });
  const sawProgress: boolean[] = [];
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'mock',
    sawProgress,
    async run(request: AgentRequest) {
      sawProgress.push(request.onProgress !== undefined);
      request.onProgress?.({ type: 'retry', attempts: 1, endpoint: 'https://models.example/v1', failure: 'HTTP 503' });
      request.onProgress?.({ type: 'retry', attempts: 2, endpoint: 'https://models.example/v1', failure: 'HTTP 503' });
      return mock.run(request);
    },
  };
}

function engineWith(observer: ((event: EngineEvent) => void) | undefined) {
  const clock = new FixedClock('2026-11-27T08:00:00Z', 1000);
  const plan = buildPlan(dailyTriagePattern, { level: 'L1' });
  const backend = retryingBackend();
  const ports = createMemoryPorts({ plan, clock, backend: { scenarios: ['noop'] }, commands: {} });
  return { engine: new LoopEngine(plan, { ...ports, backend, ...(observer ? { observer } : {}) }), backend };
}

describe("a backend's retries reach the observer", () => {
  it('as agent-retry events of the phase, stamped with the call start (no clock read a replayed backend would not make)', async () => {
    const events: EngineEvent[] = [];
    const { engine } = engineWith((event) => events.push(event));
    await engine.tick();
    const start = events.find((event) => event.type === 'phase-start' && event.phase === 'triage');
    const retries = events.filter((event) => event.type === 'agent-retry');
    expect(retries).toEqual([
      { type: 'agent-retry', tickId: start!.tickId, phase: 'triage', at: start!.at, attempts: 1, endpoint: 'https://models.example/v1', failure: 'HTTP 503' },
      { type: 'agent-retry', tickId: start!.tickId, phase: 'triage', at: start!.at, attempts: 2, endpoint: 'https://models.example/v1', failure: 'HTTP 503' },
    ]);
  });

  it('the twin: with nobody observing, the request carries no onProgress', async () => {
    const { engine, backend } = engineWith(undefined);
    await engine.tick();
    expect(backend.sawProgress).toEqual([false]);
  });
});
