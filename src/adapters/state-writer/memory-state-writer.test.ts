import { describe, expect, it } from 'vitest';
import type { TickRecord } from '../../core/ports/index.js';
import { MemoryKillSwitch } from '../kill-switch/memory-kill-switch.js';
import { MemoryStateWriter } from './memory-state-writer.js';
import { parseRunLog } from '../../core/state/run-log.js';

const START = Date.UTC(2026, 8, 15, 8, 0, 39);

const record: TickRecord = {
  tickId: 'tick-1',
  patternId: 'ci-sweeper',
  startedAt: START,
  finishedAt: START + 5_000,
  outcome: 'no-op',
  kind: 'no-op',
  level: 'L1',
  itemsFound: 0,
  actionsTaken: 0,
  escalations: 0,
  tokens: 0,
  summary: 'nothing to do',
  findings: [],
  waiting: [],
};

describe('MemoryStateWriter', () => {
  it('keeps records and renders the state file and run log', async () => {
    const writer = new MemoryStateWriter({ project: 'acme' });
    await writer.recordTick(record);
    await writer.note('ci-sweeper', START + 60_000, 'Paused: kill switch');
    expect(writer.specificationVersion).toBe('state-writer-v1');
    expect(writer.records).toEqual([record]);
    expect(writer.notes).toEqual([{ patternId: 'ci-sweeper', at: START + 60_000, line: 'Paused: kill switch' }]);
    expect(writer.stateText).toContain('# Loop State — acme\nLast run: 2026-09-15T08:00:39Z\n');
    expect(writer.stateText).toContain('Paused: kill switch');
    expect(parseRunLog(writer.runLogText ?? '')).toEqual([
      expect.objectContaining({ run_id: '2026-09-15T08:00:39Z', pattern: 'ci-sweeper', outcome: 'no-op', tick_id: 'tick-1' }),
    ]);
  });

  it('starts from given texts and does not let later mutation of a record leak in', async () => {
    const writer = new MemoryStateWriter({ stateFile: 'ci-sweeper-state.md', initialState: '# CI\n\nLast run: never\n' });
    const mutable = { ...record, findings: [] as TickRecord['findings'] };
    await writer.recordTick(mutable);
    mutable.findings.push({ severity: 'high', summary: 'late' });
    expect(writer.records[0]?.findings).toEqual([]);
    expect(writer.stateFile).toBe('ci-sweeper-state.md');
    expect(writer.stateText).toBe('# CI\n\nLast run: 2026-09-15T08:00:39Z\n');
  });
});

describe('MemoryKillSwitch', () => {
  it('pauses, reports its source, resumes and counts checks', async () => {
    const kill = new MemoryKillSwitch();
    expect(await kill.check()).toEqual({ paused: false });
    kill.pause('test');
    expect(await kill.check()).toEqual({ paused: true, source: 'test' });
    kill.resume();
    expect(await kill.check()).toEqual({ paused: false });
    expect(kill.checks).toBe(3);
  });
});
