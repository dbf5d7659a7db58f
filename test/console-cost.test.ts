/**
 * The console shows what a loop costs per merged change, in one place: each
 * loop of `/api/loops` (the Loops table) carries its spend over the last 30
 * days per accepted change — the number `metrics` prints — and an unreadable
 * outcomes file is reported in that cell, never a failed page.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../src/composition/runtime.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';
import { METRICS_LOOP_MD, seedMetricsHistory } from './metrics-fixtures.js';

afterAll(cleanupTempDirs);

async function spend(root: string, at: string, days: number) {
  const opened = await openRuntime({ cwd: root, env: {}, clock: new FixedClock(at) });
  if (!opened.ok) throw new Error(JSON.stringify(opened.issues));
  return opened.runtime.spend(days);
}

async function loops(root: string, at: string) {
  const opened = await openRuntime({ cwd: root, env: {}, clock: new FixedClock(at) });
  if (!opened.ok) throw new Error(JSON.stringify(opened.issues));
  return opened.runtime.loops();
}

describe('console: cost per merged change', () => {
  it('gives each loop its tokens and dollars per merged change over the last 30 days', async () => {
    const root = await makeRepo({ 'LOOP.md': METRICS_LOOP_MD });
    await seedMetricsHistory(root);
    const [loop] = await loops(root, '2026-11-23T12:00:00Z');
    expect(loop!.id).toBe('ci-sweeper');
    expect(loop!.perMergedChange).toEqual({ days: 30, merged: 1, tokens: 3000, usd: 1.5, complete: true });
    // Two months later the window holds no accepted change.
    const [later] = await loops(root, '2027-01-30T12:00:00Z');
    expect(later!.perMergedChange).toMatchObject({ merged: 0, tokens: null, usd: null });
  });

  it('reports an unreadable outcomes file in the cell instead of failing the Loops table', async () => {
    const root = await makeRepo({ 'LOOP.md': METRICS_LOOP_MD });
    await seedMetricsHistory(root);
    await writeFile(join(root, '.loop-runtime/outcomes.jsonl'), '{"type":"proposal"}\nnot json\n');
    const [loop] = await loops(root, '2026-11-23T12:00:00Z');
    expect(loop!.perMergedChange.usd).toBe(null);
    expect(loop!.perMergedChange.error).toMatch(/outcomes\.jsonl:1/);
  });

  it('gives the spend chart dollars per day beside tokens, from the prices the spend journal settled', async () => {
    const root = await makeRepo({ 'LOOP.md': METRICS_LOOP_MD });
    await seedMetricsHistory(root); // three ticks on 2026-11-18 at 1,000 tokens and $0.50 each
    const line = (day: string, tickId: string, tokens: number, costUsd: number | null) => JSON.stringify({ at: 0, day, patternId: 'ci-sweeper', tickId, phase: 'check', tokens, costUsd });
    const journal = join(root, '.loop-runtime/spend.jsonl');
    // 11-19: priced and unpriced spend (a lower bound); 11-20: only unpriced spend (no dollars to show).
    await writeFile(journal, `${await readFile(journal, 'utf8')}${line('2026-11-19', 'tick-d', 400, 0.2)}\n${line('2026-11-19', 'tick-e', 600, null)}\n${line('2026-11-20', 'tick-f', 700, null)}\n`);
    const report = await spend(root, '2026-11-21T12:00:00Z', 4);
    expect(report.days).toEqual(['2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21']);
    const [loop] = report.loops;
    expect(loop!.perDay).toEqual([3000, 1000, 700, 0]);
    expect(loop!.costUsdPerDay).toEqual([1.5, 0.2, null, 0]);
    expect(loop!.costCompletePerDay).toEqual([true, false, false, true]);
  });
});
