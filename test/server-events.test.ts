/**
 * The event journal `serve` watches: bounded by rotation, read across both
 * generations, and followed by a tail that survives rotation and torn lines.
 */
import { appendFile, mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tailTickEvents } from '../src/adapters/tick-events/event-tail.js';
import { appendTickEvent, EVENTS_FILE, readTickEvents, type TickEventLine } from '../src/adapters/tick-events/tick-events.js';

const line = (index: number): TickEventLine => ({ v: 1, type: 'phase-end', loop: 'daily-triage', pid: 1, tickId: `tick-${index}`, phase: 'triage', at: index, tokens: index, note: 'x'.repeat(40) });

describe('event journal', () => {
  it('rotates past its bound, keeps two generations and reads both in order', async () => {
    const root = await mkdtemp(join(tmpdir(), 'events-'));
    for (let index = 0; index < 40; index++) appendTickEvent(root, line(index), 1_000);
    const current = await stat(join(root, EVENTS_FILE));
    const previous = await stat(join(root, `${EVENTS_FILE}.1`));
    expect(current.size).toBeLessThan(1_200);
    expect(previous.size).toBeLessThan(1_200);
    const read = await readTickEvents(root);
    expect(read.length).toBeGreaterThan(0);
    expect(read.length).toBeLessThan(40);
    expect(read.map((entry) => entry.at)).toEqual([...read.map((entry) => entry.at)].sort((a, b) => a - b));
    expect(read.at(-1)?.tickId).toBe('tick-39');
  });

  it('skips torn and foreign lines instead of failing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'events-'));
    appendTickEvent(root, line(1));
    await appendFile(join(root, EVENTS_FILE), '{"v":1,"type":"phase-e\nnot json\n{"other":"tool"}\n');
    appendTickEvent(root, line(2));
    expect((await readTickEvents(root)).map((entry) => entry.tickId)).toEqual(['tick-1', 'tick-2']);
  });

  it('tails new lines only, across a rotation and a line written in two parts', async () => {
    const root = await mkdtemp(join(tmpdir(), 'events-'));
    appendTickEvent(root, line(0));
    const seen: string[] = [];
    let notify: () => void = () => {};
    const tail = await tailTickEvents(root, (entry) => {
      seen.push(entry.tickId);
      notify();
    }, { pollMs: 50 });
    expect(seen).toEqual([]);
    const until = (count: number) => new Promise<void>((resolve) => {
      notify = () => seen.length >= count && resolve();
      notify();
    });
    try {
      appendTickEvent(root, line(1));
      await until(1);
      const text = `${JSON.stringify(line(2))}\n`;
      await appendFile(join(root, EVENTS_FILE), text.slice(0, 20));
      await appendFile(join(root, EVENTS_FILE), text.slice(20));
      await until(2);
      for (let index = 3; index < 30; index++) {
        appendTickEvent(root, line(index), 600);
        if (index % 2 === 0) await until(index);
      }
      await until(29);
      expect(seen).toEqual(Array.from({ length: 29 }, (_, index) => `tick-${index + 1}`));
      // A file replaced by a shorter one is read from its start.
      await writeFile(join(root, EVENTS_FILE), `${JSON.stringify(line(99))}\n`);
      await until(30);
      expect(seen.at(-1)).toBe('tick-99');
    } finally {
      tail.close();
    }
  });
});
