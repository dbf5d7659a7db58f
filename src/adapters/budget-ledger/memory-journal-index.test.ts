/**
 * The memory ledger's running index against the journal's own accounting (`JournalTally`, what the file ledger
 * sums newest first): on seeded journals of opens, settles, reconciles (and settles after a reconcile) and plain
 * spend over two days and two loops, asked at random points so the index catches up in steps.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/seeded-random.js';
import { JournalTally, type JournalEntry } from '../../core/budget/budget-journal.js';
import type { AgentRole } from '../../core/ports/index.js';
import { MemoryJournalIndex } from './memory-journal-index.js';

const DAYS = ['2026-11-20', '2026-11-21'];
const LOOPS = ['daily-triage', 'ci-sweeper'];

function tally(entries: readonly JournalEntry[], day: string, patternId?: string): JournalTally {
  const tally = new JournalTally(day, patternId);
  for (let index = entries.length - 1; index >= 0; index--) tally.visit(entries[index]!);
  return tally;
}

describe('MemoryJournalIndex', () => {
  it('sums and lists open reservations as JournalTally does, on 300 seeded journals (open, settled and reconciled all occur)', () => {
    const random = seededRandom(20261127);
    const pick = <T>(options: readonly T[]): T => options[Math.floor(random() * options.length)]!;
    const seen = { open: 0, settledAfterReconcile: 0, queries: 0 };
    for (let run = 0; run < 300; run++) {
      const entries: JournalEntry[] = [];
      const index = new MemoryJournalIndex(entries);
      const opened: Extract<JournalEntry, { kind: 'open' }>[] = [];
      const settled = new Set<string>();
      const reconciled = new Set<string>();
      let at = 1_763_600_000_000;
      for (let step = 0; step < 60; step++) {
        at += Math.floor(random() * 3) * 1_000; // equal times occur: their order is the journal's
        const roll = random();
        const unsettled = opened.filter((entry) => !settled.has(entry.id));
        if (roll < 0.4 || unsettled.length === 0) {
          const entry = { kind: 'open' as const, at, day: pick(DAYS), patternId: pick(LOOPS), tickId: `t${step}`, phase: pick<AgentRole>(['triage', 'implement', 'check']), tokens: Math.floor(random() * 5_000), id: `r-${run}-${step}` };
          opened.push(entry);
          entries.push(entry);
        } else if (roll < 0.75) {
          const open = pick(unsettled);
          if (reconciled.has(open.id)) seen.settledAfterReconcile++;
          settled.add(open.id);
          entries.push({ kind: 'settle', id: open.id, day: open.day, patternId: open.patternId, tickId: open.tickId, phase: open.phase, at, tokens: Math.floor(random() * 6_000), costUsd: null });
        } else if (roll < 0.9) {
          const candidates = unsettled.filter((entry) => !reconciled.has(entry.id));
          if (candidates.length === 0) continue;
          const open = pick(candidates);
          reconciled.add(open.id);
          entries.push({ kind: 'reconcile', id: open.id, day: open.day, patternId: open.patternId, tickId: open.tickId, phase: open.phase, at, tokens: open.tokens, reason: 'abandoned' });
        } else {
          entries.push({ kind: 'spend', at, day: pick(DAYS), patternId: pick(LOOPS), tickId: `t${step}`, phase: 'triage', tokens: Math.floor(random() * 1_000), costUsd: null });
        }
        if (random() < 0.3) {
          seen.queries++;
          for (const day of DAYS) {
            for (const patternId of LOOPS) {
              const expected = tally(entries, day, patternId);
              expect(index.spentOn(day, patternId)).toBe(expected.spent());
              expect(index.openReservations(day, patternId)).toEqual(expected.openReservations());
              seen.open += expected.openReservations().length;
            }
            // Across loops, reservations opened in the same millisecond come loop by loop, not in journal order.
            const all = index.openReservations(day);
            expect(all.map((reservation) => reservation.id).sort()).toEqual(tally(entries, day).openReservations().map((reservation) => reservation.id).sort());
            expect(all.every((reservation, position) => position === 0 || all[position - 1]!.at <= reservation.at)).toBe(true);
          }
        }
      }
    }
    expect(seen.open).toBeGreaterThan(1_000);
    expect(seen.settledAfterReconcile).toBeGreaterThan(100);
    expect(seen.queries).toBeGreaterThan(1_000);
  });
});
