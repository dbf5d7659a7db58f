/**
 * One StateWriter contract, two implementations: the file writer on a real
 * temporary directory and its memory twin. A differential check at the end
 * holds them to the same bytes for the same ticks.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStateWriter } from '../../src/adapters/state-writer/file-state-writer.js';
import { MemoryStateWriter } from '../../src/adapters/state-writer/memory-state-writer.js';
import { readTextOrNull } from '../../src/adapters/fs/atomic-file.js';
import { describeStateWriterConformance, sampleTickRecord } from '../../src/testing/conformance/index.js';

describeStateWriterConformance('FileStateWriter', {
  async create(setup) {
    const root = await mkdtemp(join(tmpdir(), 'state-conformance-'));
    if (setup.initialState !== undefined) await writeFile(join(root, setup.stateFile), setup.initialState);
    if (setup.initialRunLog !== undefined) await writeFile(join(root, setup.runLog), setup.initialRunLog);
    const writer = new FileStateWriter({ root, stateFile: setup.stateFile, runLog: setup.runLog, redact: setup.redact, project: setup.project });
    return {
      writer,
      readState: () => readTextOrNull(join(root, setup.stateFile)),
      readRunLog: () => readTextOrNull(join(root, setup.runLog)),
      dispose: () => rm(root, { recursive: true, force: true }),
    };
  },
});

describeStateWriterConformance('MemoryStateWriter', {
  async create(setup) {
    const writer = new MemoryStateWriter({
      project: setup.project,
      stateFile: setup.stateFile,
      runLog: setup.runLog,
      redact: setup.redact,
      ...(setup.initialState !== undefined ? { initialState: setup.initialState } : {}),
      ...(setup.initialRunLog !== undefined ? { initialRunLog: setup.initialRunLog } : {}),
    });
    return { writer, readState: async () => writer.stateText, readRunLog: async () => writer.runLogText };
  },
});

describe('FileStateWriter and MemoryStateWriter write the same bytes', () => {
  it('for the same ticks and notes, from nothing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'state-differential-'));
    try {
      const redact = (text: string) => text.replaceAll('hunter2-secret', '***');
      const file = new FileStateWriter({ root, stateFile: 'STATE.md', runLog: 'loop-run-log.md', redact, project: 'acme' });
      const memory = new MemoryStateWriter({ project: 'acme', redact });
      const start = Date.UTC(2026, 8, 15, 8, 0, 39);
      for (const writer of [file, memory]) {
        await writer.recordTick(sampleTickRecord({ summary: 'hunter2-secret' }));
        await writer.note('daily-triage', start + 60_000, 'halted: hunter2-secret');
        await writer.recordTick(sampleTickRecord({ tickId: 'tick-2', patternId: 'ci-sweeper', startedAt: start + 3_600_000, finishedAt: start + 3_601_000 }));
      }
      expect(await readFile(join(root, 'STATE.md'), 'utf8')).toBe(memory.stateText);
      expect(await readFile(join(root, 'loop-run-log.md'), 'utf8')).toBe(memory.runLogText);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('FileStateWriter on bytes only a file can hold', () => {
  it('refuses a state file that is not valid UTF-8, naming the line, and leaves its bytes alone', async () => {
    const root = await mkdtemp(join(tmpdir(), 'state-utf8-'));
    try {
      const bytes = Buffer.concat([Buffer.from('# Loop State — acme\nLast run: never\n'), Buffer.from([0x6e, 0xe9, 0x0a])]);
      await writeFile(join(root, 'STATE.md'), bytes);
      const writer = new FileStateWriter({ root, stateFile: 'STATE.md', runLog: 'loop-run-log.md' });
      await expect(writer.recordTick(sampleTickRecord())).rejects.toMatchObject({ code: 'STATE_FAILED', message: expect.stringContaining('STATE.md:3:') });
      expect(Buffer.compare(await readFile(join(root, 'STATE.md')), bytes)).toBe(0);
      // The twin: a real U+FFFD written as valid UTF-8 is text like any other.
      await writeFile(join(root, 'STATE.md'), '# Loop State — acme\nLast run: never\nreplacement \uFFFD kept\n');
      await writer.recordTick(sampleTickRecord());
      expect(await readFile(join(root, 'STATE.md'), 'utf8')).toContain('replacement \uFFFD kept');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
