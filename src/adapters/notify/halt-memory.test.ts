/**
 * A halt that persists is told once: notifyTicks with the file memory in a temporary directory and a recording
 * notifier. Each "told once" case has its twin that is told again (a new halt, a new day, a failed send).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TickResult } from '../../core/engine/tick-result.js';
import type { Notification, Notifier } from '../../core/ports/notifier.js';
import { fileHaltMemory, haltKey, NOTIFIED_HALTS_FILE, toldHalts } from './halt-memory.js';
import { notifyTicks } from './notify-ticks.js';

const DAY = 86_400_000;
const NOON = Date.parse('2026-11-27T12:00:00Z');
let root: string;
let sent: Notification[];
let failing: boolean;
const notifier: Notifier = {
  async notify(notification) {
    if (failing) return { ok: false, reason: 'unreachable', message: 'receiver down', retryable: true };
    sent.push(notification);
    return { ok: true };
  },
};

const tick = (kind: string, fields: Record<string, unknown> = {}, at = NOON, tickId = `t-${at}-${kind}`) =>
  ({ tickId, patternId: 'ci-sweeper', level: 'L2', startedAt: at, finishedAt: at, tokens: 0, budget: { spentToday: 20, dailyTokenCap: 10 }, steps: [], kind, ...fields }) as unknown as TickResult;
const exhausted = (at = NOON) => tick('halted', { reason: 'budget-exhausted', message: 'Daily token cap reached' }, at);
const overrun = (at: number) => tick('halted', { reason: 'budget-overrun', message: 'spent past the reservation' }, at);
const awaiting = (at: number) => tick('halted', { reason: 'awaiting-resume', message: 'halted since …' }, at);

async function notify(ticks: TickResult[]) {
  const notes: string[] = [];
  await notifyTicks(ticks, { webhook: 'env:HOOK' }, { env: {}, note: (line) => notes.push(line), notifier, memory: fileHaltMemory(root) });
  return notes;
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'halt-memory-'));
  sent = [];
  failing = false;
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('halt notifications, told once', () => {
  it('a daily cap refusing tick after tick is told once that day; the next day it is told again', async () => {
    await notify([exhausted(NOON)]);
    await notify([exhausted(NOON + 60_000)]);
    await notify([exhausted(NOON + 120_000)]);
    expect(sent.map((notification) => notification.kind)).toEqual(['halted']);
    await notify([exhausted(NOON + DAY)]);
    expect(sent).toHaveLength(2);
  });

  it('a sticky halt (budget-overrun) is told once, its awaiting-resume ticks never; after resume a new overrun is told again', async () => {
    await notify([overrun(NOON)]);
    await notify([awaiting(NOON + 1)]);
    await notify([awaiting(NOON + 2)]);
    expect(sent.map((notification) => notification.reason)).toEqual(['budget-overrun: spent past the reservation']);
    // `resume`, a tick runs (noop), then the loop overruns again: a new halt.
    await notify([tick('noop', { summary: 'nothing' }, NOON + 3)]);
    await notify([overrun(NOON + 4)]);
    expect(sent).toHaveLength(2);
  });

  it('a circuit left open is told once; a tick that runs in between makes the next opening news again', async () => {
    const open = (at: number) => tick('halted', { reason: 'circuit-open', message: 'three failures' }, at);
    await notify([open(NOON)]);
    await notify([open(NOON + 1)]);
    expect(sent).toHaveLength(1);
    await notify([tick('failed', { phase: 'implement', message: 'x', retryable: true }, NOON + 2)]);
    await notify([open(NOON + 3)]);
    expect(sent).toHaveLength(2);
  });

  it('a send that failed is not remembered: the next refused tick tries again (and the tick is never failed)', async () => {
    failing = true;
    const notes = await notify([exhausted(NOON)]);
    expect(notes).toEqual(['notify: the halted notification for ci-sweeper was not sent: receiver down; the tick is unaffected']);
    failing = false;
    await notify([exhausted(NOON + 1)]);
    expect(sent).toHaveLength(1);
  });

  it('escalations are never deduplicated', async () => {
    const escalated = (at: number) => tick('escalated', { item: { key: 'issue#7', title: 't' }, reason: 'protected path' }, at);
    await notify([escalated(NOON)]);
    await notify([escalated(NOON + 1)]);
    expect(sent).toHaveLength(2);
  });

  it('the journal: newest line per loop wins (a merged state branch may interleave lines); a forgotten halt is absent', async () => {
    await notify([exhausted(NOON)]);
    expect(await readFile(join(root, NOTIFIED_HALTS_FILE), 'utf8')).toContain('"key":"budget-exhausted@2026-11-27"');
    const text = ['{"at":5,"loop":"a","key":"x"}', '{"at":3,"loop":"a","key":null}', '{"at":2,"loop":"b","key":"y"}', '{"at":4,"loop":"b","key":null}', 'not json'].join('\n');
    expect([...toldHalts(text)]).toEqual([['a', 'x']]);
    expect(haltKey(tick('noop'))).toBeNull();
  });
});
