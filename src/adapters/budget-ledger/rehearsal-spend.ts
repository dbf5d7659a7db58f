/**
 * The rule for one loop's rehearsal spend in the file journal: its lines tagged with the mock backend (opens,
 * settles, reconciles, plain spend). `FileBudgetLedger.removeRehearsal` applies it under the journal's lock; the
 * fleet store's rows follow the same rule in SQL (`PostgresBudgetLedger.removeRehearsal`).
 */
import { REHEARSAL_BACKEND } from '../../core/outcomes/rehearsal-backend.js';
import { parseJournalLine } from './journal-line.js';

/**
 * The journal's text without `patternId`'s mock lines, and how many went. Every other line keeps its bytes.
 *
 * @example
 * ```ts
 * withoutRehearsalSpend(text, 'daily-triage'); // → { text: '…real lines…', removed: 6 }
 * ```
 */
export function withoutRehearsalSpend(text: string, patternId: string): { text: string; removed: number } {
  const lines = text.split('\n');
  const kept = lines.filter((line) => {
    const parsed = parseJournalLine(line);
    return !(parsed.kind === 'entry' && parsed.backend === REHEARSAL_BACKEND && parsed.entry.patternId === patternId);
  });
  return { text: kept.join('\n'), removed: lines.length - kept.length };
}
