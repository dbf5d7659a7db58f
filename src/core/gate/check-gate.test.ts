import { describe, expect, it } from 'vitest';
import { checkGate } from './check-gate.js';

describe('checkGate remembers matches per glob list', () => {
  it('the same path under the same list: the same answer, denied and allowed alike', () => {
    const policy = { denylist: ['**/secrets/**'], maxFiles: 10, autoMergeAllowlist: ['docs/**'] };
    for (let round = 0; round < 3; round++) {
      expect(checkGate(policy, 'commit', ['src/secrets/key.ts']).trigger).toBe('denylist');
      expect(checkGate(policy, 'commit', ['src/app.ts']).allowed).toBe(true);
      expect(checkGate(policy, 'auto-merge', ['docs/a.md']).allowed).toBe(true);
      expect(checkGate(policy, 'auto-merge', ['src/app.ts']).trigger).toBe('not-allowlisted');
    }
  });

  it('a list changed in place is matched afresh, never by what the old list answered', () => {
    const denylist = ['**/secrets/**'];
    const policy = { denylist, maxFiles: 10, autoMergeAllowlist: [] };
    expect(checkGate(policy, 'commit', ['src/app.ts']).allowed).toBe(true);
    denylist.push('src/app.ts');
    expect(checkGate(policy, 'commit', ['src/app.ts']).trigger).toBe('denylist');
    denylist.splice(0, denylist.length, '**/secrets/**');
    expect(checkGate(policy, 'commit', ['src/app.ts']).allowed).toBe(true);
  });
});
