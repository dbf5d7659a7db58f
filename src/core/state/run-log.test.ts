import { describe, expect, it } from 'vitest';
import type { TickRecord } from '../ports/index.js';
import {
  RUN_LOG_MARKER,
  appendRunLogLine,
  formatRunLogLine,
  freshRunLog,
  parseRunLog,
  runLogLineFromTick,
  type RunLogLine,
} from './run-log.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 8, 15, 8, 0, 39, 900);

const record: TickRecord = {
  tickId: 'tick-7',
  patternId: 'daily-triage',
  startedAt: NOW,
  finishedAt: NOW + 10_400,
  outcome: 'report-only',
  kind: 'reported',
  level: 'L1',
  itemsFound: 9,
  actionsTaken: 1,
  escalations: 2,
  tokens: 52_000,
  summary: '',
  findings: [],
  waiting: [],
};

function line(runId: string, extra: Partial<RunLogLine> = {}): RunLogLine {
  return {
    run_id: runId,
    pattern: 'p',
    duration_s: 1,
    items_found: 0,
    actions_taken: 0,
    escalations: 0,
    tokens_estimate: 10,
    outcome: 'no-op',
    ...extra,
  };
}

describe('run log lines', () => {
  it('writes the canonical keys in order, then our extras', () => {
    expect(formatRunLogLine(runLogLineFromTick(record))).toBe(
      '{"run_id":"2026-09-15T08:00:39Z","pattern":"daily-triage","duration_s":10,"items_found":9,"actions_taken":1,"escalations":2,"tokens_estimate":52000,"outcome":"report-only","state":"reported","tick_id":"tick-7","level":"L1","kind":"reported"}',
    );
  });

  it('creates a fresh log with header, format block and marker', () => {
    const text = appendRunLogLine(null, line('2026-09-15T08:00:00Z'), { now: NOW, project: 'acme' });
    expect(text.startsWith('# Loop Run Log — acme\n')).toBe(true);
    expect(text).toContain('## Format\n');
    expect(text).toContain(`## Recent Runs\n\n${RUN_LOG_MARKER}\n{"run_id":"2026-09-15T08:00:00Z"`);
    expect(text.endsWith('}\n')).toBe(true);
    expect(parseRunLog(text)).toHaveLength(1);
  });

  it('appends after a marker that has no trailing newline', () => {
    const template = freshRunLog('x').trimEnd();
    expect(template.endsWith(RUN_LOG_MARKER)).toBe(true);
    const text = appendRunLogLine(template, line('2026-09-15T08:00:00Z'), { now: NOW });
    expect(text).toBe(`${template}\n${formatRunLogLine(line('2026-09-15T08:00:00Z'))}\n`);
  });

  it('prunes JSON entries older than 30 days and never touches other lines', () => {
    const old = formatRunLogLine(line(new Date(NOW - 31 * DAY).toISOString()));
    const recent = formatRunLogLine(line(new Date(NOW - 29 * DAY).toISOString()));
    const text = `${freshRunLog('x')}${old}\nhand-written note\n{"run_id":"not a date","pattern":"p"}\n${recent}\n`;
    const out = appendRunLogLine(text, line('2026-09-15T08:00:00Z'), { now: NOW });
    expect(out).not.toContain(old);
    expect(out).toContain(`${RUN_LOG_MARKER}\nhand-written note\n{"run_id":"not a date","pattern":"p"}\n${recent}\n`);
    // The multi-line example in ## Format is untouched.
    expect(out).toContain('"run_id": "2026-06-09T08:15:00Z",');
  });

  it('honours a custom prune window', () => {
    const old = formatRunLogLine(line(new Date(NOW - 3 * DAY).toISOString()));
    const out = appendRunLogLine(`${freshRunLog()}${old}\n`, line('2026-09-15T08:00:00Z'), { now: NOW, pruneDays: 2 });
    expect(parseRunLog(out).map((entry) => entry.run_id)).toEqual(['2026-09-15T08:00:00Z']);
  });

  it('parses entries liberally, skipping malformed lines', () => {
    const text = `${RUN_LOG_MARKER}\n{"run_id":"a","tokens_estimate":5,"extra":true}\n{"run_id":\n{"pattern":"no id"}\n`;
    const entries = parseRunLog(text);
    expect(entries).toEqual([{ run_id: 'a', tokens_estimate: 5, extra: true }]);
  });
});
