/**
 * What the console's buttons and tables rely on: the kill switch's writer
 * side (every source listed, only our files cleared, ids confined) and the
 * one-pass spend read that must agree with `spentOn`.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileKillSwitch, loopPauseFile } from '../src/adapters/kill-switch/kill-switch.js';
import { FileBudgetLedger } from '../src/adapters/budget-ledger/file-budget-ledger.js';

describe('FileKillSwitch writer side', () => {
  it('pauses one loop without pausing its neighbour, and lists every source in the order check() honours', async () => {
    const root = await mkdtemp(join(tmpdir(), 'pause-'));
    await writeFile(join(root, 'STATE.md'), '# State\n\nloop-pause-all: true\n');
    const triage = new FileKillSwitch({ root, stateFile: 'STATE.md', env: { LOOP_RUNTIME_PAUSE: '1' }, patternId: 'daily-triage' });
    const sweeper = new FileKillSwitch({ root, env: {}, patternId: 'ci-sweeper' });
    await triage.pause({ patternId: 'daily-triage' });
    await triage.pause();
    expect((await triage.sources()).map((source) => source.kind)).toEqual(['env', 'file', 'loop-file', 'state-line']);
    expect(await triage.check()).toEqual({ paused: true, source: 'env LOOP_RUNTIME_PAUSE' });
    expect(await sweeper.check()).toEqual({ paused: true, source: 'file loop-pause-all' });
    await triage.resume();
    expect(await sweeper.check()).toEqual({ paused: false });
    expect((await triage.sources()).map((source) => source.kind)).toEqual(['env', 'loop-file', 'state-line']);
    await triage.resume({ patternId: 'daily-triage' });
    // The environment and the line a human wrote are never changed; they are reported as not clearable.
    expect(await triage.sources()).toEqual([
      { kind: 'env', source: 'env LOOP_RUNTIME_PAUSE', clearable: false },
      { kind: 'state-line', source: 'STATE.md line loop-pause-all: true', clearable: false },
    ]);
  });

  it('refuses a loop id that could name a path', () => {
    for (const id of ['../x', 'a/b', '', 'A', '.']) expect(() => loopPauseFile(id)).toThrow(RangeError);
    expect(loopPauseFile('daily-triage')).toBe('.loop-runtime/paused/daily-triage');
  });
});

describe('FileBudgetLedger.spentByLoopOn', () => {
  it('agrees with spentOn for every loop, journal and foreign run-log lines alike', async () => {
    const root = await mkdtemp(join(tmpdir(), 'spend-'));
    const ledger = new FileBudgetLedger({ root, runLog: 'loop-run-log.md' });
    const day = '2026-11-23';
    const at = Date.parse(`${day}T08:00:00Z`);
    // The journal is chronological: yesterday's line first.
    await ledger.record({ patternId: 'a', tickId: 't0', phase: 'triage', tokens: 40, costUsd: null, day: '2026-11-22', at: at - 86_400_000 });
    const a = await ledger.open({ patternId: 'a', tickId: 't1', phase: 'triage', tokens: 500, day, at });
    await ledger.settle(a.id, { tokens: 300, at, costUsd: null });
    await ledger.open({ patternId: 'b', tickId: 't2', phase: 'triage', tokens: 700, day, at });
    const lines = [
      { run_id: `${day}T07:00:00Z`, pattern: 'b', tokens_estimate: 11, outcome: 'no-op' },
      { run_id: `${day}T07:30:00Z`, pattern: 'a', tokens_estimate: 5, outcome: 'no-op', tick_id: 'ours' },
    ];
    await writeFile(join(root, 'loop-run-log.md'), `# Log\n\n<!-- Loop appends below this line -->\n${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    for (const when of [day, '2026-11-22']) {
      const together = await ledger.spentByLoopOn(when, ['a', 'b', 'c']);
      for (const id of ['a', 'b', 'c']) expect(together.get(id), `${id} on ${when}`).toBe(await ledger.spentOn(when, id));
    }
    expect((await ledger.spentByLoopOn(day, ['a', 'b'])).get('b')).toBe(711);
    expect(existsSync(join(root, '.loop-runtime', 'spend.jsonl'))).toBe(true);
  });
});
