import { describe, expect, it } from 'vitest';
import type { Pattern } from '../config/schemas.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { LoopEngine } from './loop-engine.js';
import type { ItemLeaseResult, ItemLeases } from '../ports/index.js';

const pattern: Pattern = {
  id: 'issue-pr-repair',
  name: 'Issue-to-PR Repair',
  file: 'issue-pr-repair.md',
  goal: 'Fix small bugs',
  cadence: '6h',
  risk: 'medium',
  tools: ['claude-code'],
  skills: [],
  state: 'STATE.md',
  phases: ['fix'],
  human_gates: [],
  week_one_mode: 'L2',
  cost: { tokens_noop: 5000, tokens_report: 50000, tokens_action: 200000, suggested_daily_cap: 1_000_000, early_exit_required: false },
};

/** Item leases in memory, recording what the engine asked for. */
class MemoryItemLeases implements ItemLeases {
  readonly specificationVersion = 'item-leases-v1' as const;
  readonly held = new Map<string, string>();
  readonly log: string[] = [];
  async acquire(request: { itemKey: string; patternId: string }): Promise<ItemLeaseResult> {
    const holder = this.held.get(request.itemKey);
    if (holder) {
      this.log.push(`refused ${request.itemKey}`);
      return { ok: false, holder, message: `Item ${request.itemKey} is being worked on by ${holder}.` };
    }
    this.held.set(request.itemKey, request.patternId);
    this.log.push(`acquired ${request.itemKey}`);
    return {
      ok: true,
      release: async () => {
        this.held.delete(request.itemKey);
        this.log.push(`released ${request.itemKey}`);
      },
    };
  }
}

function engine(items: ItemLeases) {
  const plan = buildPlan(pattern, { level: 'L2', overrides: { verify: ['npm test'] } });
  const ports = { ...createMemoryPorts({ plan, backend: { itemKey: 'issue#7' }, commands: {} }), items };
  return { engine: new LoopEngine(plan, ports), backend: ports.backend, workspace: ports.workspace };
}

describe('item leases in the act path', () => {
  it('takes the item\'s lease before the workspace and releases it after the commit', async () => {
    const items = new MemoryItemLeases();
    const { engine: loop } = engine(items);
    expect((await loop.tick()).kind).toBe('proposed');
    expect(items.log).toEqual(['acquired issue#7', 'released issue#7']);
    expect(items.held.size).toBe(0);
  });

  it('reports an item another loop holds instead of acting on it: no workspace, no implementer', async () => {
    const items = new MemoryItemLeases();
    items.held.set('issue#7', 'ci-sweeper');
    const { engine: loop, backend, workspace } = engine(items);
    const result = await loop.tick();
    expect(result).toMatchObject({ kind: 'report', degraded: true, degradedReason: 'item issue#7 is leased by ci-sweeper' });
    expect(backend.calls.map((call) => call.role)).toEqual(['triage']);
    expect(workspace.inspect()).toEqual([]);
    expect(items.held.get('issue#7')).toBe('ci-sweeper');
  });
});
