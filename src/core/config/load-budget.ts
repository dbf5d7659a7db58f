/**
 * loop-budget.md reader: the "Daily limits" table (Loop | Max runs/day |
 * Max tokens/day | …) and the "Primary loop" line loop-init writes. The file
 * is prose written by people and other tools, so the reader skips what is not
 * a limit (other tables, other columns); a limit cell it cannot read exactly is
 * an error, because a cap read as something else is worse than no run.
 */
import { toLoadResult } from './diagnostics.js';
import { parseTokenAmount, TOKEN_AMOUNT_FIX } from './token-amount.js';
import type { Diagnostic, LoadResult } from './diagnostics.js';

export interface BudgetLimit {
  /** The loop's display name as written in the table, e.g. "Daily Triage". */
  loop: string;
  maxRunsPerDay: number | null;
  maxTokensPerDay: number | null;
  /** 1-based line of the table row. */
  line: number;
}

export interface BudgetFile {
  /** The loop named by `> Primary loop: **Daily Triage**`, if any. */
  primaryLoop: string | null;
  limits: BudgetLimit[];
}

function cells(row: string): string[] {
  const trimmed = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  return trimmed.split('|').map((cell) => cell.trim());
}

function stripMarkdown(text: string): string {
  return text.replace(/[*_`]/g, '').trim();
}

/** Normalizes a loop name for matching: "Daily Triage" ≡ "daily-triage" ≡ "daily triage". */
export function normalizeLoopName(text: string): string {
  return stripMarkdown(text).toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/**
 * Parses loop-budget.md.
 *
 * @example
 * ```ts
 * const result = loadBudget(text, 'loop-budget.md');
 * // result.value.limits → [{ loop: 'Daily Triage', maxRunsPerDay: 2, maxTokensPerDay: 100000, line: 9 }]
 * ```
 */
export function loadBudget(text: string, file = 'loop-budget.md'): LoadResult<BudgetFile> {
  const lines = text.split(/\r?\n/);
  const diagnostics: Diagnostic[] = [];
  const primary = /primary loop:\s*\**([^*\n]+?)\**\s*(?:\(|$)/i.exec(text);
  const budget: BudgetFile = { primaryLoop: primary ? stripMarkdown(primary[1] as string) : null, limits: [] };
  const headingIndex = lines.findIndex((line) => /^#{1,6}\s+daily limits\b/i.test(line));
  if (headingIndex < 0) return toLoadResult(budget, diagnostics);
  let header: string[] | null = null;
  for (let index = headingIndex + 1; index < lines.length; index += 1) {
    const line = lines[index] as string;
    if (/^#{1,6}\s/.test(line)) break;
    if (!line.trim().startsWith('|')) {
      if (header && line.trim() !== '') break;
      continue;
    }
    const row = cells(line);
    if (!header) {
      header = row.map((cell) => cell.toLowerCase());
      continue;
    }
    if (row.every((cell) => /^:?-+:?$/.test(cell))) continue;
    const loopColumn = Math.max(0, header.findIndex((cell) => /^loop\b/.test(cell)));
    const runsColumn = header.findIndex((cell) => /runs/.test(cell));
    const tokensColumn = header.findIndex((cell) => /tokens/.test(cell));
    const loop = stripMarkdown(row[loopColumn] ?? '');
    if (!loop) continue;
    const limit: BudgetLimit = { loop, maxRunsPerDay: null, maxTokensPerDay: null, line: index + 1 };
    for (const [column, key, label] of [[runsColumn, 'maxRunsPerDay', 'Max runs/day'], [tokensColumn, 'maxTokensPerDay', 'Max tokens/day']] as const) {
      if (column < 0) continue;
      const cell = row[column] ?? '';
      const blank = cell === '' || /^[-–—]$|^n\/?a$/i.test(cell);
      const amount = blank ? null : parseTokenAmount(cell);
      if (amount === null && !blank) {
        // A cap the user wrote but we cannot read is an error: dropping it (or reading `100 thousand` as 100) would run the loop under a cap nobody chose.
        diagnostics.push({
          severity: 'error',
          file,
          line: index + 1,
          column: line.indexOf(cell) + 1,
          path: `Daily limits.${loop}.${label}`,
          message: `${JSON.stringify(cell)} is not an amount.`,
          fix: `${TOKEN_AMOUNT_FIX} Leave the cell empty or write - for no limit.`,
        });
      }
      limit[key] = amount;
    }
    budget.limits.push(limit);
  }
  return toLoadResult(budget, diagnostics);
}

/** The limit row for a loop, matched by display name or id. */
export function findBudgetLimit(budget: BudgetFile, loop: { id: string; name: string }): BudgetLimit | undefined {
  const names = new Set([normalizeLoopName(loop.id), normalizeLoopName(loop.name)]);
  return budget.limits.find((limit) => names.has(normalizeLoopName(limit.loop)));
}
