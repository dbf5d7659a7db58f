import { describe, expect, it } from 'vitest';
import { DEFAULT_AUTONOMY, decideDemotion, recommendPromotion } from './autonomy.js';
import type { ChangeState, TrackedChange } from './outcome-record.js';

const change = (index: number, state: ChangeState): TrackedChange => ({
  proposal: { type: 'proposal', at: `2026-11-1${index}T00:00:00Z`, pattern: 'ci-sweeper', tickId: `t${index}`, itemKey: `i${index}`, commit: `abcdef${index}0`, branch: `b${index}`, base: 'main', delivery: 'local', level: 'L2', tokens: 1, source: 'tick' },
  observation: null,
  state,
});
const policy = { ...DEFAULT_AUTONOMY, window: 3, minAcceptance: 0.5 };

describe('decideDemotion', () => {
  it('demotes below the threshold and keeps at it (the boundary is inclusive)', () => {
    expect(decideDemotion('L2', policy, [change(1, 'merged'), change(2, 'closed'), change(3, 'closed')])).toMatchObject({ kind: 'demote', to: 'L1' });
    expect(decideDemotion('L2', { ...policy, window: 2 }, [change(1, 'merged'), change(2, 'closed')])).toMatchObject({ kind: 'keep' });
  });
  it('judges only decided proposals and waits for a full window', () => {
    expect(decideDemotion('L2', policy, [change(1, 'closed'), change(2, 'closed'), change(3, 'open')])).toMatchObject({ kind: 'keep' });
  });
  it('a revert demotes, pauses at L0, or is ignored, as configured', () => {
    expect(decideDemotion('L3', policy, [change(1, 'reverted')])).toMatchObject({ kind: 'demote', from: 'L3', to: 'L2' });
    expect(decideDemotion('L3', { ...policy, onRevert: 'pause' }, [change(1, 'reverted')])).toMatchObject({ kind: 'pause', to: 'L0' });
    expect(decideDemotion('L3', { ...policy, onRevert: 'ignore' }, [change(1, 'reverted')])).toMatchObject({ kind: 'keep' });
    expect(decideDemotion('L0', policy, [change(1, 'reverted')])).toMatchObject({ kind: 'keep' });
  });
});

describe('recommendPromotion', () => {
  const good = Array.from({ length: 10 }, (_, index) => change(index, 'merged'));
  it('recommends only with every piece of evidence, and never without an audit score', () => {
    expect(recommendPromotion('L2', DEFAULT_AUTONOMY, good, 8, { score: 80, level: 'L3' })).toMatchObject({ recommended: true, to: 'L3' });
    expect(recommendPromotion('L2', DEFAULT_AUTONOMY, good, 8, null).recommended).toBe(false);
    expect(recommendPromotion('L2', DEFAULT_AUTONOMY, good, 2, { score: 80, level: 'L3' }).blockers).toEqual(['2 day(s) at L2; at least 7 needed']);
    expect(recommendPromotion('L2', DEFAULT_AUTONOMY, [...good, change(9, 'reverted')], 8, { score: 80, level: 'L3' }).recommended).toBe(false);
    expect(recommendPromotion('L3', DEFAULT_AUTONOMY, good, 8, { score: 80, level: 'L3' }).blockers).toContain('L3 is the highest level');
  });
});
