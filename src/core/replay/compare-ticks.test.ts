import { describe, expect, it } from 'vitest';
import type { TickResult } from '../engine/tick-result.js';
import { compareTicks, summarizeTick } from './compare-ticks.js';

const base = { tickId: 't1', patternId: 'daily-triage', level: 'L2', startedAt: 0, finishedAt: 10, tokens: 900, budget: { spentToday: 900, dailyTokenCap: 1000 } };
const steps = [{ phase: 'triage' as const, tokens: 500, note: 'triage decision: act — one item' }];
const gate = { allowed: true, trigger: 'ok', reason: 'within policy', matchedPaths: [], action: 'commit' } as const;
const verification = { verdict: 'APPROVE' as const, reasons: [], evidence: [] };
const item = { key: 'bug#1', title: 'add subtracts', paths: ['src/add.mjs'] };
const changes = [{ path: 'src/add.mjs', status: 'modified' as const, binary: false }];
const proposed = { ...base, steps, kind: 'proposed', item, changes, verification, gate, commit: { sha: 'abc', branch: 'loop/x', message: 'm' }, delivery: null, attempt: 1 } as unknown as TickResult;
const escalated = {
  ...base,
  steps: [...steps, { phase: 'gate', tokens: 0, note: 'gate (commit): escalated' }],
  kind: 'escalated',
  item,
  changes,
  verification,
  gate: { ...gate, allowed: false, trigger: 'denylist', reason: '1 path(s) match the denylist' },
  reason: '1 path(s) match the denylist',
  attempt: 1,
} as unknown as TickResult;

describe('summarizeTick / compareTicks', () => {
  it('reads the facts a team asks about', () => {
    expect(summarizeTick(proposed)).toEqual({ kind: 'proposed', decision: 'act', verdict: 'APPROVE', gate: 'allowed (ok)', item: 'bug#1', changes: 'src/add.mjs', reason: null, tokens: 900 });
    expect(summarizeTick({ ...base, steps: [], kind: 'halted', reason: 'budget-exhausted', message: 'cap reached' })).toMatchObject({ kind: 'halted', decision: null, verdict: null, gate: null, reason: 'budget-exhausted: cap reached' });
  });

  it('an identical result is identical; a gate that now escalates changes kind, gate and reason', () => {
    expect(compareTicks(proposed, structuredClone(proposed))).toEqual({ identical: true, facts: [], details: [] });
    const comparison = compareTicks(proposed, escalated);
    expect(comparison.identical).toBe(false);
    expect(comparison.facts).toEqual([
      { fact: 'kind', recorded: 'proposed', now: 'escalated' },
      { fact: 'gate', recorded: 'allowed (ok)', now: 'escalated (denylist): 1 path(s) match the denylist' },
      { fact: 'reason', recorded: null, now: '1 path(s) match the denylist' },
    ]);
    expect(comparison.details.map((detail) => detail.path)).toEqual(expect.arrayContaining(['kind', 'steps[1]', 'gate.allowed', 'commit']));
  });

  it('a replay that stopped differs in its kind', () => {
    expect(compareTicks(proposed, null)).toEqual({ identical: false, facts: [{ fact: 'kind', recorded: 'proposed', now: null }], details: [] });
  });
});
