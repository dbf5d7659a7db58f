import { describe, expect, it } from 'vitest';
import { findBudgetLimit, loadBudget } from './load-budget.js';
import { parseTokenAmount } from './token-amount.js';

describe('parseTokenAmount', () => {
  it.each([
    ['1M', 1_000_000],
    ['100k', 100_000],
    ['100,000', 100_000],
    ['2,000,000', 2_000_000],
    ['1.5M', 1_500_000],
    ['~50k tokens', 50_000],
    ['`80k`', 80_000],
    ['96', 96],
    ['100 000', 100_000],
    ['100_000', 100_000],
    ['100 thousand', 100_000],
    ['2 million tokens', 2_000_000],
    ['100k/day', 100_000],
    ['1,000,000 tokens per day', 1_000_000],
  ])('%s → %d', (text, expected) => {
    expect(parseTokenAmount(text)).toBe(expected);
  });

  // Each of these used to be read as its first number (a 100- or 50-token cap): now none is an amount.
  it.each(['unlimited', '', '50%', '100 thousands of', '10k-20k', '1e5', '1.5', '100,00', '1,0000', '100 000,000', '-5', 'k'])('%j is not an amount', (text) => {
    expect(parseTokenAmount(text)).toBeNull();
  });
});

const budget = `# Loop Budget — YOUR_PROJECT

> Primary loop: **CI Sweeper** (scaffolded by loop-init)

## Daily limits

| Loop | Max runs/day | Max tokens/day | Max sub-agent spawns/run |
|------|--------------|----------------|--------------------------|
| CI Sweeper | 96 | 1M | 0 (L1) / 3 (L2) |
| **Daily Triage** | 2 | 100,000 | 0 |
| Issue Triage | 4 | - | 0 |

## Kill switch

| Not | A | Limit |
`;

describe('loadBudget', () => {
  it('reads the primary loop and the daily limits table; "-" is no limit', () => {
    const result = loadBudget(budget);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.primaryLoop).toBe('CI Sweeper');
    expect(result.value.limits).toEqual([
      { loop: 'CI Sweeper', maxRunsPerDay: 96, maxTokensPerDay: 1_000_000, line: 9 },
      { loop: 'Daily Triage', maxRunsPerDay: 2, maxTokensPerDay: 100_000, line: 10 },
      { loop: 'Issue Triage', maxRunsPerDay: 4, maxTokensPerDay: null, line: 11 },
    ]);
    expect(result.warnings).toEqual([]);
  });

  it.each(['lots', '100 thousands', '50%'])('a limit it cannot read exactly (%j) is an error naming the cell and the fix, never a smaller cap', (cell) => {
    const result = loadBudget(budget.replace('| Issue Triage | 4 | - | 0 |', `| Issue Triage | 4 | ${cell} | 0 |`));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual([
      expect.objectContaining({ severity: 'error', file: 'loop-budget.md', line: 11, column: 22, path: 'Daily limits.Issue Triage.Max tokens/day', message: `${JSON.stringify(cell)} is not an amount.` }),
    ]);
    expect(result.issues[0]?.fix).toContain('100k');
  });

  it('finds a loop\'s limit by display name or id', () => {
    const result = loadBudget(budget);
    if (!result.ok) throw new Error('expected ok');
    expect(findBudgetLimit(result.value, { id: 'daily-triage', name: 'Daily Triage' })?.maxTokensPerDay).toBe(100_000);
    expect(findBudgetLimit(result.value, { id: 'ci-sweeper', name: 'Something Else' })?.maxTokensPerDay).toBe(1_000_000);
    expect(findBudgetLimit(result.value, { id: 'pr-babysitter', name: 'PR Babysitter' })).toBeUndefined();
  });

  it('is empty, not an error, when there is no Daily limits table', () => {
    expect(loadBudget('# Budget\n\nMax tokens/day: lots\n')).toEqual({ ok: true, value: { primaryLoop: null, limits: [] }, warnings: [] });
  });
});
