import { describe, expect, it } from 'vitest';
import { tickState } from './tick-state.js';

describe('tickState', () => {
  it('names a tick by its kind: a rejected tick is rejected, though the run log says report-only', () => {
    expect(tickState({ kind: 'rejected', outcome: 'report-only' })).toBe('rejected');
    expect(tickState({ kind: 'report', outcome: 'report-only' })).toBe('report-only');
    expect(tickState({ kind: 'proposed', outcome: 'fix-proposed' })).toBe('proposed');
    expect(tickState({ kind: 'noop', outcome: 'no-op' })).toBe('no-op');
    expect(tickState({ kind: 'paused', outcome: 'interrupted' })).toBe('interrupted');
  });

  it('keeps what a line written outside a tick says, and reads lines other tools wrote by their outcome', () => {
    expect(tickState({ kind: 'human-discarded', outcome: 'no-op' })).toBe('human-discarded');
    expect(tickState({ outcome: 'fix-proposed' })).toBe('proposed');
    expect(tickState({ outcome: 'escalated' })).toBe('escalated');
    expect(tickState({ kind: 'toString', outcome: 'no-op' })).toBe('toString');
  });
});
