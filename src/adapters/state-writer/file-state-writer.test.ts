import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TickRecord } from '../../core/ports/index.js';
import { parseRunLog } from '../../core/state/run-log.js';
import { FileStateWriter } from './file-state-writer.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'state-writer-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const START = Date.UTC(2026, 8, 15, 8, 0, 39);

const record: TickRecord = {
  tickId: 'tick-1',
  patternId: 'daily-triage',
  startedAt: START,
  finishedAt: START + 12_000,
  outcome: 'escalated',
  kind: 'escalated',
  level: 'L2',
  itemsFound: 3,
  actionsTaken: 1,
  escalations: 1,
  tokens: 4_200,
  summary: 'token sk-SECRET123 leaked in log',
  findings: [{ severity: 'high', summary: 'CI prints sk-SECRET123', itemKey: 'ci:build' }],
  waiting: [{ itemKey: '#9', title: 'rotate sk-SECRET123', loopAction: 'escalated', humanDecision: 'rotate the key' }],
};

const redact = (text: string) => text.replace(/sk-[A-Z0-9]+/g, '[REDACTED]');

describe('FileStateWriter', () => {
  it('creates both files, redacting everything it writes', async () => {
    const writer = new FileStateWriter({ root, stateFile: 'STATE.md', runLog: 'loop-run-log.md', redact });
    await writer.recordTick(record);
    await writer.note('daily-triage', START + 60_000, 'Paused by sk-SECRET123 holder');
    const state = await readFile(join(root, 'STATE.md'), 'utf8');
    const runLog = await readFile(join(root, 'loop-run-log.md'), 'utf8');
    expect(state).not.toContain('sk-SECRET123');
    expect(state).toContain(`# Loop State — ${basename(root)}\nLast run: 2026-09-15T08:00:39Z\n`);
    expect(state).toContain('- [ ] #9 — rotate [REDACTED]');
    expect(state).toContain('Paused by [REDACTED] holder');
    expect(parseRunLog(runLog)).toEqual([
      {
        run_id: '2026-09-15T08:00:39Z',
        pattern: 'daily-triage',
        duration_s: 12,
        items_found: 3,
        actions_taken: 1,
        escalations: 1,
        tokens_estimate: 4200,
        outcome: 'escalated',
        tick_id: 'tick-1',
        level: 'L2',
        kind: 'escalated',
        state: 'escalated',
      },
    ]);
  });

  it('leaves human text alone even when it matches the redactor, and note() writes no run-log line', async () => {
    const human = '# Loop State — x\nLast run: never\n## Watch List\n- human wrote sk-HUMAN1 here\n';
    await writeFile(join(root, 'STATE.md'), human);
    const writer = new FileStateWriter({ root, stateFile: 'STATE.md', runLog: 'loop-run-log.md', redact });
    await writer.note('daily-triage', START, 'budget halt');
    expect(await readFile(join(root, 'STATE.md'), 'utf8')).toContain('- human wrote sk-HUMAN1 here\n');
    await expect(readFile(join(root, 'loop-run-log.md'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
