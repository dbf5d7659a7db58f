import { describe, expect, it } from 'vitest';
import { MockBackend } from '../../../backends/mock/index.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { MemoryKillSwitch } from '../../adapters/kill-switch/memory-kill-switch.js';
import { MemoryAttemptLedger } from '../../adapters/attempt-ledger/memory-attempt-ledger.js';
import type { EnginePorts } from './engine-ports.js';
import { LoopEngine } from './loop-engine.js';

const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'] } });

/** A full set of ports whose one named port is then removed at run time (as a JavaScript caller could). */
function without(name: keyof EnginePorts): EnginePorts {
  const ports: EnginePorts = createMemoryPorts({ plan, commands: {} });
  Reflect.deleteProperty(ports, name);
  return ports;
}

describe('LoopEngine ports', () => {
  it.each(['workspace', 'attempts', 'killSwitch', 'clock', 'ids', 'backend', 'state', 'budget'] as const)(
    'refuses to start without the %s port instead of defaulting it',
    (name) => {
      expect(() => new LoopEngine(plan, without(name))).toThrow(TypeError);
      expect(() => new LoopEngine(plan, without(name))).toThrow(new RegExp(`the ${name} port is missing`));
    },
  );

  it('refuses a kill switch with no specificationVersion, naming what it implements and what is needed', () => {
    const killSwitch = new MemoryKillSwitch();
    Reflect.defineProperty(killSwitch, 'specificationVersion', { value: undefined });
    expect(() => new LoopEngine(plan, { ...createMemoryPorts({ plan }), killSwitch })).toThrow(
      'LoopEngine: the killSwitch port implements no specificationVersion, but this engine needs "kill-switch-v1".',
    );
  });

  it('refuses an attempt ledger written for attempt-ledger-v1 (records without patternId)', () => {
    const attempts = Object.assign(new MemoryAttemptLedger(), { specificationVersion: String('attempt-ledger-v1') });
    expect(() => new LoopEngine(plan, { ...createMemoryPorts({ plan }), attempts })).toThrow(
      /the attempts port implements "attempt-ledger-v1", but this engine needs "attempt-ledger-v2"/,
    );
  });

  it('refuses a backend for another version, and checks optional ports when given', () => {
    const backend = Object.assign(new MockBackend(), { specificationVersion: String('agent-backend-v0') });
    expect(() => new LoopEngine(plan, { ...createMemoryPorts({ plan }), backend })).toThrow(/needs "agent-backend-v2"/);
    const delivery: NonNullable<EnginePorts['delivery']> = { specificationVersion: 'delivery-v1', deliver: async () => ({ ok: false, reason: 'api', message: 'unused', retryable: false }) };
    Object.assign(delivery, { specificationVersion: 'delivery-v0' });
    expect(() => new LoopEngine(plan, { ...createMemoryPorts({ plan }), delivery })).toThrow(/the delivery port implements "delivery-v0"/);
  });

  it('accepts the memory ports and runs a tick on the injected clock and ids only', async () => {
    const ports = createMemoryPorts({ plan, commands: {} });
    const result = await new LoopEngine(plan, ports).tick();
    expect(result).toMatchObject({ kind: 'proposed', tickId: 'tick-mwq4b280-1', startedAt: Date.parse('2026-11-21T08:00:00Z') });
    expect(ports.killSwitch.checks).toBeGreaterThanOrEqual(4);
  });
});
