import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopRuntimeError } from '../../core/errors.js';
import type { ReservationRequest } from '../../core/ports/index.js';
import { mergeStateText } from '../../core/schedule/merge-state.js';
import { FileBudgetLedger } from './file-budget-ledger.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'budget-journal-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const DAY = '2026-09-15';
const AT = Date.parse(`${DAY}T08:00:00Z`);
const journal = () => join(root, '.loop-runtime', 'spend.jsonl');
const v1 = (tokens: number, at = AT, day = DAY) => JSON.stringify({ at, day, patternId: 'ci-sweeper', tickId: `t-${tokens}`, phase: 'triage', tokens, costUsd: null });
const hold = (tokens: number, overrides: Partial<ReservationRequest> = {}): ReservationRequest => ({ at: AT, day: DAY, patternId: 'ci-sweeper', tickId: 't-1', phase: 'implement', tokens, ...overrides });

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error: unknown = await promise.then(() => null, (caught: unknown) => caught);
  if (!isLoopRuntimeError(error)) throw new Error(`expected a LoopRuntimeError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

describe('FileBudgetLedger journal format', () => {
  it('reads a v1 journal and keeps appending v2 entries to it', async () => {
    await mkdir(join(root, '.loop-runtime'));
    await writeFile(journal(), `${v1(1000, AT - 86_400_000, '2026-09-14')}\n${v1(200)}\n`);
    const ledger = new FileBudgetLedger({ root });
    expect(await ledger.spentOn(DAY, 'ci-sweeper')).toBe(200);
    const held = await ledger.open(hold(40_000, { at: AT + 1 }));
    expect(await ledger.spentOn(DAY, 'ci-sweeper')).toBe(40_200);
    await ledger.settle(held.id, { at: AT + 2, tokens: 5_000, costUsd: 0.25 });
    expect(await ledger.spentOn(DAY, 'ci-sweeper')).toBe(5_200);
    expect(await ledger.spentOn('2026-09-14', 'ci-sweeper')).toBe(1000);
  });

  it('writes opens under "reserved", so a v1 reader (which sums "tokens") counts each phase once', async () => {
    const ledger = new FileBudgetLedger({ root });
    const held = await ledger.open(hold(40_000));
    await ledger.settle(held.id, { at: AT + 1, tokens: 6_500, costUsd: null });
    const lines = (await readFile(journal(), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      { kind: 'open', id: held.id, at: AT, day: DAY, patternId: 'ci-sweeper', tickId: 't-1', phase: 'implement', reserved: 40_000 },
      { kind: 'settle', id: held.id, at: AT + 1, day: DAY, patternId: 'ci-sweeper', tickId: 't-1', phase: 'implement', tokens: 6_500, costUsd: null },
    ]);
    expect(lines.reduce((sum, line) => sum + (typeof line.tokens === 'number' ? line.tokens : 0), 0)).toBe(6_500);
  });

  it('does not stop reading at a settle written after midnight for yesterday\'s reservation', async () => {
    const ledger = new FileBudgetLedger({ root });
    const today = '2026-09-16';
    const late = await ledger.open(hold(40_000, { at: Date.parse(`${DAY}T23:59:00Z`) }));
    await ledger.open(hold(700, { at: Date.parse(`${today}T00:00:10Z`), day: today, patternId: 'other' }));
    await ledger.open(hold(300, { at: Date.parse(`${today}T00:00:20Z`), day: today }));
    await ledger.settle(late.id, { at: Date.parse(`${today}T00:01:00Z`), tokens: 9_000, costUsd: null });
    expect(await ledger.spentOn(today, 'ci-sweeper')).toBe(300);
    expect(await ledger.spentOn(today, 'other')).toBe(700);
    expect(await ledger.spentOn(DAY, 'ci-sweeper')).toBe(9_000);
  });
});

describe('FileBudgetLedger on a damaged journal', () => {
  it.each([
    ['a line that is not JSON', 'garbage\n', /not a JSON object/],
    ['an entry missing its tokens', `${JSON.stringify({ at: AT, day: DAY, patternId: 'ci-sweeper', tickId: 't', phase: 'triage' })}\n`, /"tokens" must be a number/],
    ['an entry of an unknown kind', `${JSON.stringify({ kind: 'refund', id: 'r', at: AT, day: DAY, patternId: 'ci-sweeper', tickId: 't', phase: 'triage' })}\n`, /unknown entry kind "refund"/],
    ['a JSON array', '[1,2]\n', /not a JSON object/],
  ])('%s in the middle is an error naming the file, the line and the fix', async (_name, bad, problem) => {
    await mkdir(join(root, '.loop-runtime'));
    await writeFile(journal(), `${v1(1)}\n${v1(2)}\n${bad}${v1(3)}\n`);
    const ledger = new FileBudgetLedger({ root });
    for (const read of [() => ledger.spentOn(DAY, 'ci-sweeper'), () => ledger.openReservations({ day: DAY }), () => ledger.settle('r-missing', { at: AT, tokens: 1, costUsd: null })]) {
      const error = await failure(read());
      expect(error.code).toBe('BUDGET_LEDGER_UNREADABLE');
      expect(error.message).toContain(`${journal()}:3 is corrupt`);
      expect(error.message).toMatch(problem);
      expect(error.message).toContain(`To fix: repair or delete line 3 of ${journal()}`);
    }
    // Nothing was appended to a journal that could not be read.
    expect((await readFile(journal(), 'utf8')).split('\n')).toHaveLength(5);
  });

  it('a journal that is not a readable file is an error, not an empty ledger', async () => {
    await mkdir(journal(), { recursive: true });
    const error = await failure(new FileBudgetLedger({ root }).spentOn(DAY, 'ci-sweeper'));
    expect(error.code).toBe('BUDGET_LEDGER_UNREADABLE');
    expect(error.message).toContain(`Could not read the spend journal ${journal()}`);
    expect(error.message).toContain('To fix: make');
  });

  it('skips a torn append (a crash mid-write) anywhere, since its entry never resolved', async () => {
    const ledger = new FileBudgetLedger({ root });
    const held = await ledger.open(hold(40_000));
    await appendFile(journal(), `{"kind":"settle","id":"${held.id}","at":1,"day":"${DAY}","patternId":"ci-swe`);
    expect(await ledger.spentOn(DAY, 'ci-sweeper')).toBe(40_000);
    await ledger.record(JSON.parse(v1(5)));
    // The torn line is now a complete line in the middle: still a torn append, not corruption.
    expect(await ledger.spentOn(DAY, 'ci-sweeper')).toBe(40_005);
    expect(await ledger.openReservations({ day: DAY })).toEqual([held]);
  });
});

describe('FileBudgetLedger journals merged by the state branch', () => {
  it('keeps open and settle entries from both runners and counts each reservation once', async () => {
    const base = new FileBudgetLedger({ root, dir: 'base' });
    const orphan = await base.open(hold(40_000));
    const baseText = await readFile(base.journalPath, 'utf8');
    const sides: string[] = [];
    for (const [index, side] of ['local', 'remote'].entries()) {
      const ledger = new FileBudgetLedger({ root, dir: side });
      await mkdir(join(root, side));
      await writeFile(ledger.journalPath, baseText);
      // Both runners find the orphan and reconcile it; each runs its own tick.
      await ledger.reconcile(orphan.id, { at: AT + 10 + index, tokens: 40_000, reason: 'crashed' });
      const held = await ledger.open(hold(10_000, { at: AT + 20 + index, tickId: `t-${side}`, phase: 'triage' }));
      await ledger.settle(held.id, { at: AT + 30 + index, tokens: 1_000 + index, costUsd: null });
      sides.push(await readFile(ledger.journalPath, 'utf8'));
    }
    const merged = mergeStateText('jsonl', { base: baseText, local: sides[0]!, remote: sides[1]! });
    await mkdir(join(root, 'merged'));
    const ledger = new FileBudgetLedger({ root, dir: 'merged' });
    await writeFile(ledger.journalPath, merged ?? '');
    expect(await ledger.spentOn(DAY, 'ci-sweeper')).toBe(40_000 + 1_000 + 1_001);
    expect(await ledger.openReservations({ day: DAY })).toEqual([]);
  });
});
