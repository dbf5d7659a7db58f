import { describe, expect, it } from 'vitest';
import { updateStateFile } from '../state/state-file.js';
import type { TickRecord } from '../ports/index.js';
import { markWaitingDecided } from './human-decision.js';

const record: TickRecord = {
  tickId: 'tick-1',
  patternId: 'daily-triage',
  startedAt: Date.parse('2026-05-01T10:00:00Z'),
  finishedAt: Date.parse('2026-05-01T10:00:09Z'),
  outcome: 'escalated',
  kind: 'escalated',
  level: 'L2',
  itemsFound: 1,
  actionsTaken: 0,
  escalations: 1,
  tokens: 100,
  summary: 'escalated',
  findings: [],
  waiting: [{ itemKey: 'issue#7', title: 'Fix it', loopAction: 'gate: .env', humanDecision: 'approve or reject' }],
};

describe('markWaitingDecided', () => {
  it('ticks the item, adds the decision, and the next tick drops it', () => {
    const state = updateStateFile(null, { tick: record }, { project: 'demo' });
    const { text, found } = markWaitingDecided(state, 'daily-triage', 'issue#7', 'approved by a human');
    expect(found).toBe(true);
    expect(text).toContain('- [x] issue#7 — Fix it');
    expect(text).toContain('  Decided: approved by a human');
    expect(text.replace(/- \[x\].*\n(\s+.*\n)*/, '')).not.toContain('issue#7');
    const next = updateStateFile(text, { tick: { ...record, waiting: [], startedAt: record.startedAt + 60_000 } });
    expect(next).not.toContain('issue#7');
  });

  it('leaves the text alone when the item is not waiting', () => {
    const state = updateStateFile(null, { tick: record }, { project: 'demo' });
    expect(markWaitingDecided(state, 'other-pattern', 'issue#7', 'x')).toEqual({ text: state, found: false });
    expect(markWaitingDecided(state, 'daily-triage', 'issue#8', 'x').found).toBe(false);
  });
});
