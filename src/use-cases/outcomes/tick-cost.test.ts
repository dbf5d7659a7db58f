import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES_AS_OF } from '../../../backends/shared/usage.js';
import { spendByTick } from './spend-by-tick.js';
import { MOCK_PRICE_SOURCE, priceSource, REHEARSAL_PRICE_SOURCE, tickCost, totalCost } from './tick-cost.js';

const line = (fields: Record<string, unknown>) => JSON.stringify({ at: 1, day: '2026-11-27', patternId: 'daily-triage', phase: 'triage', ...fields });

async function journal(lines: string[]): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tick-cost-'));
  await mkdir(join(root, '.loop-runtime'));
  await writeFile(join(root, '.loop-runtime/spend.jsonl'), lines.join('\n') + '\n');
  return root;
}

describe('tickCost: one pricing of a tick for run, status, history, metrics and cost-usd', () => {
  it('sums a tick\'s priced entries; one unpriced entry with tokens makes the tick unknown, not a smaller sum', async () => {
    const root = await journal([
      line({ tickId: 'priced', tokens: 100, costUsd: 0.001 }),
      line({ tickId: 'priced', phase: 'implement', tokens: 200, costUsd: 0.002 }),
      line({ tickId: 'partly', tokens: 100, costUsd: 0.001 }),
      line({ tickId: 'partly', phase: 'implement', tokens: 50, costUsd: null }),
      line({ tickId: 'released', tokens: 0, costUsd: null }),
      line({ tickId: 'rehearsed', tokens: 500, costUsd: null, backend: 'mock' }),
    ]);
    const spend = await spendByTick(root);
    expect(tickCost({ tickId: 'priced', tokens: 300 }, spend)).toBe(0.003);
    expect(tickCost({ tickId: 'partly', tokens: 150 }, spend)).toBeNull();
    expect(tickCost({ tickId: 'released', tokens: 0 }, spend)).toBe(0);
    expect(tickCost({ tickId: 'rehearsed', tokens: 500 }, spend)).toBe(0);
    // Not in the journal: free only when it spent nothing.
    expect(tickCost({ tickId: 'absent', tokens: 0 }, spend)).toBe(0);
    expect(tickCost({ tickId: 'absent', tokens: 10 }, spend)).toBeNull();
    // A tick that carries its own cost (the Action reads run --json) keeps it.
    expect(tickCost({ tickId: 'absent', tokens: 10, costUsd: 0.5 }, spend)).toBe(0.5);
  });

  it('a total is unknown when any tick is; otherwise the rounded sum', () => {
    expect(totalCost([0.1, 0.2])).toBe(0.3);
    expect(totalCost([0.1, null])).toBeNull();
    expect(totalCost([])).toBe(0);
  });

  it('says where the price came from: list prices with their date, the user\'s prices, unknown with the fix, the mock', () => {
    expect(priceSource({ backend: 'openai', model: 'gpt-4o-mini', prices: {} }, [0.1])).toBe(`gpt-4o-mini at list prices of ${DEFAULT_PRICES_AS_OF}`);
    expect(priceSource({ backend: 'openai', model: 'gpt-4o-mini', prices: { 'gpt-4o*': { input: 1, output: 1 } } }, [0.1])).toBe('gpt-4o-mini at your prices: (backend settings)');
    expect(priceSource({ backend: 'openai', model: 'house', prices: {} }, [null])).toBe('house: price unknown — set prices: in the backend settings');
    expect(priceSource({ backend: 'claude-code', model: null, prices: {} }, [null])).toBe("claude-code's default model: price unknown — set prices: in the backend settings");
    expect(priceSource({ backend: 'mock', model: null, prices: {}, rehearsal: true }, [0])).toBe(REHEARSAL_PRICE_SOURCE);
    // No model and nothing spent: no price was used; the twin with a model names its list.
    expect(priceSource({ backend: 'claude-code', model: null, prices: {} }, [])).toBe('nothing spent yet');
    expect(priceSource({ backend: 'claude-code', model: null, prices: {} }, [0, 0])).toBe('nothing spent yet');
    expect(priceSource({ backend: 'openai', model: 'gpt-4o-mini', prices: {} }, [0])).toBe(`gpt-4o-mini at list prices of ${DEFAULT_PRICES_AS_OF}`);
    expect(priceSource({ backend: 'mock', model: null, prices: {} }, [0])).toBe(MOCK_PRICE_SOURCE);
  });
});
