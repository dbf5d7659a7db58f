import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SpendEntry } from '../../core/ports/index.js';
import { RUN_LOG_MARKER, freshRunLog } from '../../core/state/run-log.js';
import { FileBudgetLedger, readLinesBackward } from './file-budget-ledger.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'budget-ledger-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function spend(day: string, tokens: number, patternId = 'ci-sweeper'): SpendEntry {
  return { at: Date.parse(`${day}T12:00:00Z`), day, patternId, tickId: `t-${day}-${tokens}`, phase: 'triage', tokens, costUsd: null };
}

const journal = () => join(root, '.loop-runtime', 'spend.jsonl');

describe('FileBudgetLedger', () => {
  it('spentByLoopOn keeps the backend rule of spentOn: mock spend counts only for the mock ledger', async () => {
    await new FileBudgetLedger({ root, backend: 'mock' }).record(spend('2026-09-15', 5000));
    await new FileBudgetLedger({ root, backend: 'claude-code' }).record(spend('2026-09-15', 200));
    await new FileBudgetLedger({ root }).record(spend('2026-09-15', 30, 'other'));
    for (const backend of [undefined, 'claude-code']) {
      const ledger = new FileBudgetLedger({ root, ...(backend ? { backend } : {}) });
      expect(await ledger.spentOn('2026-09-15', 'ci-sweeper')).toBe(200);
      expect(await ledger.spentByLoopOn('2026-09-15', ['ci-sweeper', 'other'])).toEqual(new Map([['ci-sweeper', 200], ['other', 30]]));
    }
    // The twin: the mock's own ledger counts everything, by either read.
    const mock = new FileBudgetLedger({ root, backend: 'mock' });
    expect(await mock.spentOn('2026-09-15', 'ci-sweeper')).toBe(5200);
    expect(await mock.spentByLoopOn('2026-09-15', ['ci-sweeper'])).toEqual(new Map([['ci-sweeper', 5200]]));
  });

  it('records durable lines and sums one day for one pattern', async () => {
    const ledger = new FileBudgetLedger({ root });
    expect(await ledger.spentOn('2026-09-15', 'ci-sweeper')).toBe(0);
    await ledger.record(spend('2026-09-14', 1000));
    await ledger.record(spend('2026-09-15', 200));
    await ledger.record(spend('2026-09-15', 30, 'other'));
    await ledger.record(spend('2026-09-15', 4));
    expect(await ledger.spentOn('2026-09-15', 'ci-sweeper')).toBe(204);
    expect(await ledger.spentOn('2026-09-14', 'ci-sweeper')).toBe(1000);
    expect(await ledger.spentOn('2026-09-15', 'other')).toBe(30);
    const lines = (await readFile(journal(), 'utf8')).trim().split('\n');
    expect(JSON.parse(lines[1] ?? '')).toEqual(spend('2026-09-15', 200));
  });

  it('adds today\'s run-log spend that other tools logged without a tick_id', async () => {
    const runLog = [
      freshRunLog('x').trimEnd(),
      '{"run_id":"2026-09-14T23:00:00Z","pattern":"ci-sweeper","tokens_estimate":999,"outcome":"no-op"}',
      '{"run_id":"2026-09-15T08:00:00Z","pattern":"ci-sweeper","tokens_estimate":500,"outcome":"report-only"}',
      '{"run_id":"2026-09-15T09:00:00Z","pattern":"ci-sweeper","tokens_estimate":700,"outcome":"no-op","tick_id":"ours"}',
      '{"run_id":"2026-09-15T10:00:00Z","pattern":"issue-triage","tokens_estimate":60,"outcome":"no-op"}',
      '',
    ].join('\n');
    await writeFile(join(root, 'loop-run-log.md'), runLog);
    const ledger = new FileBudgetLedger({ root, runLog: 'loop-run-log.md' });
    await ledger.record(spend('2026-09-15', 700));
    expect(await ledger.spentOn('2026-09-15', 'ci-sweeper')).toBe(1200);
  });

  it('ignores a torn last line and keeps appending on a fresh line', async () => {
    const ledger = new FileBudgetLedger({ root });
    await ledger.record(spend('2026-09-15', 10));
    await appendFile(journal(), '{"at":1,"day":"2026-09-15","patternId":"ci-sweeper","tok');
    expect(await ledger.spentOn('2026-09-15', 'ci-sweeper')).toBe(10);
    await ledger.record(spend('2026-09-15', 5));
    expect(await ledger.spentOn('2026-09-15', 'ci-sweeper')).toBe(15);
    const text = await readFile(journal(), 'utf8');
    expect(text.split('\n').filter((line) => line.endsWith('}'))).toHaveLength(2);
  });

  it('reads only the tail of a 100,000-line journal and stops at the first older day', async () => {
    await mkdir(join(root, '.loop-runtime'));
    const parts: string[] = [];
    // The head claims spend for the queried day: only a full scan would count it.
    for (let index = 0; index < 50; index += 1) parts.push(JSON.stringify(spend('2026-09-15', 1_000_000)));
    for (let index = 0; index < 100_000; index += 1) parts.push(JSON.stringify(spend('2026-09-14', 1)));
    for (let index = 0; index < 20; index += 1) parts.push(JSON.stringify(spend('2026-09-15', 3)));
    parts.push(JSON.stringify(spend('2026-09-15', 5, 'other')));
    await writeFile(journal(), `${parts.join('\n')}\n`);
    const ledger = new FileBudgetLedger({ root });
    expect(await ledger.spentOn('2026-09-15', 'ci-sweeper')).toBe(60);
    expect(ledger.stats.bytesRead).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('readLinesBackward', () => {
  async function collect(text: string, chunkSize: number): Promise<string[]> {
    const path = join(root, 'f.txt');
    await writeFile(path, text);
    const lines: string[] = [];
    await readLinesBackward(path, (line) => (lines.push(line), 'continue'), undefined, chunkSize);
    return lines;
  }

  it.each([1, 2, 3, 7, 1024])('visits complete lines last-first with chunk size %i', async (chunkSize) => {
    expect(await collect('one\ntwo\r\n\nthree\n', chunkSize)).toEqual(['three', '', 'two', 'one']);
    expect(await collect('one\ntwo\ntorn', chunkSize)).toEqual(['two', 'one']);
    expect(await collect('only torn', chunkSize)).toEqual([]);
    expect(await collect('', chunkSize)).toEqual([]);
  });

  it('handles a missing file and multi-byte characters split across chunks', async () => {
    await readLinesBackward(join(root, 'missing'), () => {
      throw new Error('no lines expected');
    });
    expect(await collect('héllo — wörld\nü\n', 3)).toEqual(['ü', 'héllo — wörld']);
  });

  it('stops when asked', async () => {
    const path = join(root, 'g.txt');
    await writeFile(path, `${RUN_LOG_MARKER}\na\nb\nc\n`);
    const seen: string[] = [];
    await readLinesBackward(path, (line) => (seen.push(line), line === 'b' ? 'stop' : 'continue'));
    expect(seen).toEqual(['c', 'b']);
  });
});
