/**
 * `toTickRecord` writes every key out in one literal; it replaced `Object.assign(base, fields)`. Held to that
 * reference for every scenario the mock backend plays: same keys in the same order (the run log and the state file
 * read them in order) and the same values, the halted tick's `reason` appended last as before.
 */
import { describe, expect, it } from 'vitest';
import { MockBackend, MOCK_SCENARIOS } from '../../../backends/mock/index.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import type { TickRecord } from '../ports/index.js';
import { LoopEngine } from './loop-engine.js';
import type { TickResult } from './tick-result.js';
import { toTickRecord } from './tick-record.js';

const BASE_KEYS = ['tickId', 'patternId', 'startedAt', 'finishedAt', 'outcome', 'kind', 'level', 'tokens'] as const;

/** The construction it replaced: the common part, then the case's fields assigned onto it. */
function reference(record: TickRecord): TickRecord {
  const base: Record<string, unknown> = {};
  for (const key of BASE_KEYS) base[key] = record[key];
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(record)) if (!(BASE_KEYS as readonly string[]).includes(key)) fields[key] = record[key as keyof TickRecord];
  return Object.assign(base, fields) as unknown as TickRecord;
}

describe('toTickRecord', () => {
  it('gives the keys and values of the assign-built record, in its order, for every mock scenario', async () => {
    const kinds = new Set<string>();
    for (const scenario of MOCK_SCENARIOS) {
      for (const level of ['L1', 'L2'] as const) {
        const plan = buildPlan(dailyTriagePattern, { level, overrides: { verify: ['npm test'] } });
        const ports = createMemoryPorts({ plan, commands: {} });
        const engine = new LoopEngine(plan, Object.assign({}, ports, { backend: new MockBackend({ scenarios: [scenario] }) }));
        const results: TickResult[] = await engine.ticks(3);
        for (const result of results) {
          const record = toTickRecord(result);
          kinds.add(record.kind);
          expect(JSON.stringify(record)).toBe(JSON.stringify(reference(record)));
          expect(Object.keys(record)).toEqual([...BASE_KEYS, 'itemsFound', 'actionsTaken', 'escalations', 'summary', 'findings', 'waiting']);
          expect(record).toMatchObject({ tickId: result.tickId, kind: result.kind, tokens: result.tokens, startedAt: result.startedAt });
        }
        // What the state writer was given for the same ticks: the same records, a halted tick's reason last.
        for (const written of ports.state.records) {
          const keys = Object.keys(written);
          expect(keys.slice(0, 14)).toEqual([...BASE_KEYS, 'itemsFound', 'actionsTaken', 'escalations', 'summary', 'findings', 'waiting']);
          if (written.kind === 'halted-tick') expect(keys.at(-1)).toBe('reason');
        }
      }
    }
    // The scenarios reach every kind the bench and the tests meet, so each branch above was compared.
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['escalated', 'failed', 'halted', 'noop', 'proposed', 'rejected', 'report']));
  });
});
