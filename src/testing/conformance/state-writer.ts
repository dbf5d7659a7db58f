/**
 * The StateWriter contract as a test suite. Run it against your adapter and
 * its memory twin: both must write the same state file and run log for the
 * same ticks, keep human bytes, redact what they write, and refuse a damaged
 * file with `STATE_FAILED` naming file and line instead of dropping content.
 *
 * @example
 * ```ts
 * describeStateWriterConformance('MemoryStateWriter', {
 *   async create(setup) {
 *     const writer = new MemoryStateWriter({ ...setup, initialState: setup.initialState ?? undefined });
 *     return { writer, readState: async () => writer.stateText, readRunLog: async () => writer.runLogText };
 *   },
 * });
 * ```
 */
import { describe, expect, it } from 'vitest';
import { isLoopRuntimeError } from '../../core/errors.js';
import type { StateWriter, TickRecord } from '../../core/ports/index.js';
import { parseRunLog } from '../../core/state/run-log.js';

export interface StateWriterSetup {
  /** Project name for fresh files. */
  project: string;
  /** The state file's name as errors must name it. */
  stateFile: string;
  /** The run log's name as errors must name it. */
  runLog: string;
  /** Text already in the state file / run log, or undefined for none. */
  initialState?: string;
  initialRunLog?: string;
  /** Redaction the writer must apply to every fragment it writes. */
  redact: (text: string) => string;
}

export interface StateWriterSubject {
  writer: StateWriter;
  /** The state file's text now; null when there is none. */
  readState(): Promise<string | null>;
  /** The run log's text now; null when there is none. */
  readRunLog(): Promise<string | null>;
  dispose?(): Promise<void>;
}

export interface StateWriterConformanceOptions {
  create(setup: StateWriterSetup): Promise<StateWriterSubject>;
}

const START = Date.UTC(2026, 8, 15, 8, 0, 39);
const SECRET = 'sk-CONFORMANCE0SECRET';
const redact = (text: string) => text.replaceAll(SECRET, '[REDACTED]');

/** A finished tick with findings and one item waiting on a human. */
export function sampleTickRecord(overrides: Partial<TickRecord> = {}): TickRecord {
  return {
    tickId: 'tick-1',
    patternId: 'daily-triage',
    startedAt: START,
    finishedAt: START + 12_000,
    outcome: 'escalated',
    kind: 'escalated',
    level: 'L2',
    itemsFound: 2,
    actionsTaken: 1,
    escalations: 1,
    tokens: 4_200,
    summary: 'Two findings, one escalated.',
    findings: [
      { severity: 'high', summary: 'CI fails on main', itemKey: 'ci:build' },
      { severity: 'watch', summary: 'Flaky login test' },
    ],
    waiting: [{ itemKey: 'issue#9', title: 'Rotate the deploy key', loopAction: 'escalated', humanDecision: 'rotate it or close the issue' }],
    ...overrides,
  };
}

const HUMAN_STATE = [
  '# Loop State — acme',
  'Last run: never',
  '',
  'Notes a human wrote. Keep these bytes.',
  '',
  '## High Priority (loop is acting or waiting on human)',
  '- [ ] a human task that is not ours',
  '',
  '## Watch List',
  '',
  '## Recent Noise (ignored this run)',
  '- noise the human keeps',
  '---',
  'Run log: —',
  '',
].join('\n');

/** The text with the runtime's own parts (owned blocks, `Last run:`, `Run log:`) removed. */
function humanPart(text: string | null): string {
  const kept: string[] = [];
  let inside: string | null = null;
  for (const line of (text ?? '').split('\n')) {
    const marker = /^<!-- (\/?)loop-runtime:([\w-]+):(\S+) -->$/.exec(line.trim());
    if (marker) {
      inside = marker[1] === '/' ? null : `${marker[2]}:${marker[3]}`;
      continue;
    }
    if (inside !== null || /^Last run:|^Run log:/.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n');
}

async function failureOf(action: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await action.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error, 'expected the write to be refused').not.toBeNull();
  return { code: isLoopRuntimeError(error) ? error.code : `not a LoopRuntimeError: ${String(error)}`, message: String((error as Error).message) };
}

export function describeStateWriterConformance(name: string, options: StateWriterConformanceOptions): void {
  describe(`StateWriter conformance: ${name}`, () => {
    async function subject(setup: Partial<StateWriterSetup> = {}): Promise<StateWriterSubject> {
      return options.create({ project: 'acme', stateFile: 'STATE.md', runLog: 'loop-run-log.md', redact, ...setup });
    }
    async function withSubject(setup: Partial<StateWriterSetup>, body: (state: StateWriterSubject) => Promise<void>): Promise<void> {
      const state = await subject(setup);
      try {
        await body(state);
      } finally {
        await state.dispose?.();
      }
    }

    it('declares state-writer-v1', async () => {
      await withSubject({}, async ({ writer }) => expect(writer.specificationVersion).toBe('state-writer-v1'));
    });

    it('records a tick: Last run, findings, the waiting item, the Run log line and one run-log entry', async () => {
      await withSubject({}, async (state) => {
        await state.writer.recordTick(sampleTickRecord());
        const text = (await state.readState()) ?? '';
        expect(text).toContain('# Loop State — acme');
        expect(text).toContain('Last run: 2026-09-15T08:00:39Z');
        expect(text).toContain('- ci:build — CI fails on main (high)');
        expect(text).toContain('- Flaky login test');
        expect(text).toContain('- [ ] issue#9 — Rotate the deploy key');
        const entries = parseRunLog((await state.readRunLog()) ?? '');
        expect(entries).toHaveLength(1);
        expect(entries[0]).toMatchObject({ run_id: '2026-09-15T08:00:39Z', pattern: 'daily-triage', outcome: 'escalated', tokens_estimate: 4_200, tick_id: 'tick-1', duration_s: 12 });
      });
    });

    it('never changes a byte a human wrote outside its own blocks', async () => {
      await withSubject({ initialState: HUMAN_STATE }, async (state) => {
        await state.writer.recordTick(sampleTickRecord());
        await state.writer.note('daily-triage', START + 60_000, 'Daily token cap reached.');
        await state.writer.recordTick(sampleTickRecord({ tickId: 'tick-2', startedAt: START + 3_600_000, finishedAt: START + 3_601_000, findings: [], waiting: [] }));
        expect(humanPart(await state.readState())).toBe(humanPart(HUMAN_STATE));
      });
    });

    it('a second tick replaces its findings and appends a second entry, in order', async () => {
      await withSubject({}, async (state) => {
        await state.writer.recordTick(sampleTickRecord());
        await state.writer.recordTick(
          sampleTickRecord({ tickId: 'tick-2', startedAt: START + 3_600_000, finishedAt: START + 3_601_000, outcome: 'no-op', kind: 'noop', findings: [{ severity: 'info', summary: 'All green' }] }),
        );
        const text = (await state.readState()) ?? '';
        expect(text).toContain('All green');
        expect(text).not.toContain('CI fails on main');
        expect(text.match(/issue#9/g)).toHaveLength(1);
        expect(parseRunLog((await state.readRunLog()) ?? '').map((entry) => entry.outcome)).toEqual(['escalated', 'no-op']);
      });
    });

    it('a note goes to the state file only, and a later tick clears it', async () => {
      await withSubject({}, async (state) => {
        await state.writer.recordTick(sampleTickRecord());
        const runLogBefore = await state.readRunLog();
        await state.writer.note('daily-triage', START + 60_000, 'Paused by loop-pause-all.');
        expect(await state.readState()).toContain('Paused by loop-pause-all.');
        expect(await state.readRunLog()).toBe(runLogBefore);
        await state.writer.recordTick(sampleTickRecord({ tickId: 'tick-2', startedAt: START + 120_000, finishedAt: START + 121_000 }));
        expect(await state.readState()).not.toContain('Paused by loop-pause-all.');
      });
    });

    it('redacts every fragment it writes, in both files', async () => {
      await withSubject({}, async (state) => {
        await state.writer.recordTick(
          sampleTickRecord({
            summary: `leaked ${SECRET}`,
            findings: [{ severity: 'high', summary: `CI prints ${SECRET}`, itemKey: `key-${SECRET}` }],
            waiting: [{ itemKey: 'issue#9', title: `rotate ${SECRET}`, loopAction: `saw ${SECRET}`, humanDecision: `revoke ${SECRET}` }],
          }),
        );
        await state.writer.note('daily-triage', START + 60_000, `halted near ${SECRET}`);
        const written = `${(await state.readState()) ?? ''}\n${(await state.readRunLog()) ?? ''}`;
        expect(written).not.toContain(SECRET);
        expect(written).toContain('[REDACTED]');
      });
    });

    it('what was recorded does not change when the caller mutates its record afterwards', async () => {
      await withSubject({}, async (state) => {
        const record = sampleTickRecord();
        await state.writer.recordTick(record);
        record.findings[0]!.summary = 'rewritten later';
        record.waiting[0]!.title = 'rewritten later';
        expect(await state.readState()).not.toContain('rewritten later');
      });
    });

    it.each([
      ['an unresolved merge conflict', `${HUMAN_STATE}<<<<<<< ours\n- mine\n=======\n- theirs\n>>>>>>> theirs\n`, 15],
      ['NUL bytes', `${HUMAN_STATE}binary\u0000junk\n`, 15],
    ])('refuses a state file with %s: STATE_FAILED naming file and line, nothing written', async (_what, initialState, line) => {
      await withSubject({ initialState, stateFile: 'ci-sweeper-state.md' }, async (state) => {
        const before = { state: await state.readState(), runLog: await state.readRunLog() };
        for (const attempt of [() => state.writer.recordTick(sampleTickRecord()), () => state.writer.note('daily-triage', START, 'a note')]) {
          const failure = await failureOf(attempt());
          expect(failure.code).toBe('STATE_FAILED');
          expect(failure.message).toContain(`ci-sweeper-state.md:${line}:`);
          expect(failure.message).toContain('To fix:');
        }
        expect({ state: await state.readState(), runLog: await state.readRunLog() }).toEqual(before);
      });
    });

    it('refuses a run log with a merge conflict before touching the state file', async () => {
      const initialRunLog = '# Loop Run Log\n<!-- Loop appends below this line -->\n<<<<<<< HEAD\n{"run_id":"2026-09-14T08:00:00Z"}\n=======\n>>>>>>> theirs\n';
      await withSubject({ initialState: HUMAN_STATE, initialRunLog }, async (state) => {
        const failure = await failureOf(state.writer.recordTick(sampleTickRecord()));
        expect(failure.code).toBe('STATE_FAILED');
        expect(failure.message).toContain('loop-run-log.md:3:');
        expect(await state.readState()).toBe(HUMAN_STATE);
        expect(await state.readRunLog()).toBe(initialRunLog);
      });
    });

    it('accepts the twin of a conflict: a setext heading underline of "=" is not one', async () => {
      const initialState = `${HUMAN_STATE}Section\n=======\ntext\n`;
      await withSubject({ initialState }, async (state) => {
        await state.writer.recordTick(sampleTickRecord());
        expect(await state.readState()).toContain('Section\n=======\ntext');
      });
    });
  });
}
