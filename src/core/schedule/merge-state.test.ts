import { describe, expect, it } from 'vitest';
import { lastRunOf, mergeStateText } from './merge-state.js';

const spend = (at: number, tick: string) => JSON.stringify({ at, day: '2026-09-15', patternId: 'ci-sweeper', tickId: tick, phase: 'triage', tokens: 100, costUsd: null });
const lines = (...entries: string[]) => entries.map((entry) => `${entry}\n`).join('');
const MARKER = '<!-- Loop appends below this line -->';
const runLine = (second: number, pattern: string) => JSON.stringify({ run_id: `2026-09-15T08:00:${String(second).padStart(2, '0')}Z`, pattern, outcome: 'no-op' });

describe('mergeStateText jsonl', () => {
  it('keeps both runners\' appends, in time order, each once', () => {
    const base = lines(spend(1, 'a'));
    const local = lines(spend(1, 'a'), spend(3, 'c'), spend(5, 'e'));
    const remote = lines(spend(1, 'a'), spend(2, 'b'), spend(4, 'd'));
    expect(mergeStateText('jsonl', { base, local, remote })).toBe(lines(spend(1, 'a'), spend(2, 'b'), spend(3, 'c'), spend(4, 'd'), spend(5, 'e')));
  });

  it('drops entries one side pruned since the base', () => {
    const base = lines(spend(1, 'a'), spend(2, 'b'));
    const local = lines(spend(2, 'b'), spend(3, 'c'));
    const remote = lines(spend(1, 'a'), spend(2, 'b'), spend(4, 'd'));
    expect(mergeStateText('jsonl', { base, local, remote })).toBe(lines(spend(2, 'b'), spend(3, 'c'), spend(4, 'd')));
  });

  it('takes the side that exists when the other does not', () => {
    expect(mergeStateText('jsonl', { base: null, local: null, remote: 'x\n' })).toBe('x\n');
    expect(mergeStateText('jsonl', { base: null, local: 'y\n', remote: null })).toBe('y\n');
  });
});

describe('mergeStateText run-log', () => {
  it('keeps the header and unions the entries below the marker by run_id', () => {
    const head = `# Loop Run Log\n\n${MARKER}\n`;
    const base = `${head}${runLine(1, 'a')}\n`;
    const local = `${head}${runLine(1, 'a')}\n${runLine(5, 'a')}\n`;
    const remote = `${head}${runLine(1, 'a')}\n${runLine(3, 'b')}\n`;
    expect(mergeStateText('run-log', { base, local, remote })).toBe(`${head}${runLine(1, 'a')}\n${runLine(3, 'b')}\n${runLine(5, 'a')}\n`);
  });
});

describe('mergeStateText attempt-ledger', () => {
  it('unions attempts by content and renumbers iterations', () => {
    const attempt = (item: string, at: number, iteration: number) => ({ iteration, action: `attempt ${item}`, outcome: 'failure', item, at });
    const file = (...attempts: object[]) => `${JSON.stringify({ goal: 'g', pattern: 'ci-sweeper', attempts }, null, 2)}\n`;
    const base = file(attempt('x', 1, 1));
    const local = file(attempt('x', 1, 1), attempt('y', 3, 2));
    const remote = file(attempt('x', 1, 1), attempt('z', 2, 2));
    const merged = JSON.parse(mergeStateText('attempt-ledger', { base, local, remote })!) as { attempts: Array<{ item: string; iteration: number }> };
    expect(merged.attempts.map((entry) => [entry.item, entry.iteration])).toEqual([['x', 1], ['z', 2], ['y', 3]]);
  });
});

describe('mergeStateText state-md', () => {
  const state = (lastRun: string, note = '') => `# Loop State\nLast run: ${lastRun}\n${note}`;
  it('takes the only side that changed', () => {
    const base = state('2026-09-15T08:00:00Z');
    expect(mergeStateText('state-md', { base, local: base, remote: state('2026-09-15T09:00:00Z') })).toBe(state('2026-09-15T09:00:00Z'));
    expect(mergeStateText('state-md', { base, local: state('2026-09-15T07:00:00Z'), remote: base })).toBe(state('2026-09-15T07:00:00Z'));
  });

  it('on a conflict takes the later Last run, and `prefer` on a tie', () => {
    const base = state('2026-09-15T08:00:00Z');
    expect(mergeStateText('state-md', { base, local: state('2026-09-15T10:00:00Z'), remote: state('2026-09-15T09:00:00Z') })).toBe(state('2026-09-15T10:00:00Z'));
    expect(mergeStateText('state-md', { base, local: state('2026-09-15T09:00:00Z', 'a'), remote: state('2026-09-15T09:00:00Z', 'b'), prefer: 'remote' })).toBe(state('2026-09-15T09:00:00Z', 'b'));
    expect(lastRunOf('Last run: never')).toBeNull();
  });
});
