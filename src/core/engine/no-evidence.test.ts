import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import type { Level } from '../config/schemas.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import type { Delivery, DeliveryRequest } from '../ports/index.js';
import { LoopEngine } from './loop-engine.js';

/** Delivery that records what it was asked to do, merge included. */
function recordingDelivery(): Delivery & { requests: DeliveryRequest[] } {
  const requests: DeliveryRequest[] = [];
  return {
    specificationVersion: 'delivery-v1',
    requests,
    async deliver(request) {
      requests.push(request);
      return request.merge ? { ok: true, kind: 'merged', branch: request.commit.branch } : { ok: true, kind: 'local', branch: request.commit.branch };
    },
  };
}

function setup(level: Level, verify: string[], scenario: 'act-accept' | 'reject' = 'act-accept') {
  const plan = buildPlan(dailyTriagePattern, {
    level,
    overrides: { verify, delivery: { autoMerge: true } },
    gate: { source: 'test', denylist: [], maxFiles: 10, autoMergeAllowlist: ['docs/**'] },
  });
  const ports = createMemoryPorts({ plan, commands: {}, backend: { targetPath: 'docs/guide.md', scenarios: [scenario] }, files: { 'docs/guide.md': '# Guide\n' } });
  const delivery = recordingDelivery();
  return { engine: new LoopEngine(plan, { ...ports, delivery }), ports, delivery };
}

describe('no verification command is no evidence, and no evidence is never an approval', () => {
  it('escalates an L2 change the checker approved when no verification command ran, saying how to configure one', async () => {
    const { engine, ports, delivery } = setup('L2', []);
    const result = await engine.tick();
    expect(result.kind).toBe('escalated');
    if (result.kind !== 'escalated') return;
    expect(result.verification?.verdict).toBe('ESCALATE_HUMAN');
    expect(result.reason).toContain('no verification command ran');
    expect(result.reason).toContain('`verify:`');
    expect(result.reason).toContain('`loop-runtime:` block of LOOP.md');
    expect(ports.workspace.inspect().map((attempt) => attempt.status)).toEqual(['escalated']);
    expect(delivery.requests).toEqual([]);
  });

  it('never merges at L3 with autoMerge and an allowlisted path when no verification command ran', async () => {
    const { engine, ports, delivery } = setup('L3', []);
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'escalated', verification: { verdict: 'ESCALATE_HUMAN' } });
    expect(delivery.requests).toEqual([]);
    expect(ports.workspace.inspect()[0]?.status).toBe('escalated');
  });

  it('merges the same change at L3 once a verification command passed (the policy is not "never merge")', async () => {
    const { engine, delivery } = setup('L3', ['npm test']);
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'proposed', verification: { verdict: 'APPROVE' }, gate: { action: 'auto-merge', allowed: true } });
    expect(delivery.requests.map((request) => request.merge)).toEqual([true]);
  });

  it('keeps a checker rejection a rejection when no verification command ran', async () => {
    const { engine } = setup('L2', [], 'reject');
    expect((await engine.tick()).kind).toBe('rejected');
  });
});
