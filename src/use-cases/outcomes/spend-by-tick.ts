/** Reads the spend journal back per tick, for `tickCost` (tick-cost.ts). */
import { join } from 'node:path';
import { readTextOrNull } from '../../adapters/fs/atomic-file.js';
import { parseJournalLine } from '../../adapters/budget-ledger/journal-line.js';
import { REHEARSAL_BACKEND } from '../../core/outcomes/rehearsal-backend.js';
import type { TickSpend } from './tick-cost.js';

/** Tokens and cost per tick id from `.loop-runtime/spend.jsonl` (settled, recorded and reconciled spend). */
export async function spendByTick(root: string): Promise<Map<string, TickSpend>> {
  const text = (await readTextOrNull(join(root, '.loop-runtime/spend.jsonl'))) ?? '';
  const spend = new Map<string, TickSpend & { unpriced: boolean }>();
  for (const line of text.split('\n')) {
    const parsed = parseJournalLine(line);
    if (parsed.kind !== 'entry' || parsed.entry.kind === 'open') continue;
    const entry = parsed.entry;
    const previous = spend.get(entry.tickId) ?? { tokens: 0, costUsd: null, unpriced: false, patternId: entry.patternId, day: entry.day, rehearsal: parsed.backend === REHEARSAL_BACKEND };
    const cost = 'costUsd' in entry ? entry.costUsd : null;
    // Tokens without a price make the whole tick's cost unknown: a sum of the priced part would be a smaller, made-up number.
    const unpriced = previous.unpriced || (cost === null && entry.tokens > 0);
    spend.set(entry.tickId, { ...previous, tokens: previous.tokens + entry.tokens, unpriced, costUsd: cost === null ? previous.costUsd : (previous.costUsd ?? 0) + cost });
  }
  return new Map([...spend].map(([tickId, { unpriced, ...tick }]) => [tickId, { ...tick, costUsd: unpriced ? null : tick.costUsd }]));
}
