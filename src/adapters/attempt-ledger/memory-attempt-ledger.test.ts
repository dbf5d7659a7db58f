import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../../core/ports/index.js';
import { MemoryAttemptLedger } from './memory-attempt-ledger.js';

const record = (tickId: string): AttemptRecord => ({ patternId: 'daily-triage', itemKey: 'mock#1', tickId, at: 0, outcome: 'failure', error: 'red', tokensUsed: 1 });

describe('MemoryAttemptLedger history() view (no copy per read)', () => {
  it('holds the records of when it was read: a later append shows in the next read, not in the one held', async () => {
    const ledger = new MemoryAttemptLedger([record('t1')]);
    const held = await ledger.history();
    await ledger.append(record('t2'));
    expect(held.length).toBe(1);
    expect(held[1]).toBeUndefined();
    expect([...held].map((entry) => entry.tickId)).toEqual(['t1']);
    expect(held.map((entry) => entry.tickId)).toEqual(['t1']);
    expect(Object.keys(held)).toEqual(['0']);
    expect(1 in held).toBe(false);
    expect((await ledger.history()).map((entry) => entry.tickId)).toEqual(['t1', 't2']);
  });

  it('refuses writes to the list and its records, while reading and copying it is allowed', async () => {
    const ledger = new MemoryAttemptLedger([record('t1')]);
    const held = (await ledger.history()) as AttemptRecord[];
    expect(() => held.push(record('forged'))).toThrow(TypeError);
    expect(() => {
      held[0] = record('forged');
    }).toThrow(TypeError);
    expect(() => {
      (held[0] as { outcome: string }).outcome = 'success';
    }).toThrow(TypeError);
    const copy = held.slice();
    copy.push(record('mine'));
    expect(copy.map((entry) => entry.tickId)).toEqual(['t1', 'mine']);
    expect((await ledger.history()).map((entry) => entry.tickId)).toEqual(['t1']);
    expect(Array.isArray(held)).toBe(true);
  });
});
