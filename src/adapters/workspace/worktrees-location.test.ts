import { describe, expect, it } from 'vitest';
import { emptyManifest, type WorktreeEntry } from '../../core/workspace/worktree-manifest.js';
import { adoptLegacy } from './git-worktree-store.js';
import { checkoutStateDir, stateRoot, worktreeHidingPaths, worktreesDirFor } from './worktrees-location.js';

const entry = (id: string, extra: Partial<WorktreeEntry> = {}): WorktreeEntry => ({
  id,
  path: `.loop-worktrees/${id}`,
  branch: `loop/${id}`,
  baseBranch: 'main',
  pattern: 'p',
  createdAt: '2026-01-01T00:00:00.000Z',
  status: 'escalated',
  ...extra,
});

describe('worktrees location', () => {
  it('defaults to the XDG state directory, per checkout, outside it', () => {
    expect(stateRoot({ XDG_STATE_HOME: '/state' })).toBe('/state/loop-runtime');
    expect(stateRoot({ XDG_STATE_HOME: 'relative', HOME: '/home/me' })).toBe('/home/me/.local/state/loop-runtime');
    const one = worktreesDirFor('/no/such/My App', null, { XDG_STATE_HOME: '/state' });
    expect(one).toMatch(/^\/state\/loop-runtime\/my-app-[0-9a-f]{12}\/worktrees$/);
    expect(worktreesDirFor('/no/such/other/My App', null, { XDG_STATE_HOME: '/state' })).not.toBe(one);
    expect(checkoutStateDir('/no/such/My App', { XDG_STATE_HOME: '/state' })).toBe(one.replace(/\/worktrees$/, ''));
  });

  it('honours the setting: relative to the checkout, absolute, or under ~', () => {
    const env = { HOME: '/home/me' };
    expect(worktreesDirFor('/src/app', '.loop-worktrees', env)).toBe('/src/app/.loop-worktrees');
    expect(worktreesDirFor('/src/app', '/var/wt', env)).toBe('/var/wt');
    expect(worktreesDirFor('/src/app', '~/wt', env)).toBe('/home/me/wt');
    expect(worktreeHidingPaths('/src/app', 'wt', { XDG_STATE_HOME: '/state' })).toEqual(['/state/loop-runtime', '/src/app/.loop-worktrees', '/src/app/wt']);
  });

  it("adopts our legacy entries and pool slots, leaves another tool's entries, and an id already adopted wins", () => {
    const current = { ...emptyManifest(), worktrees: [entry('both', { tickId: 't', status: 'merged' })] };
    const legacy = {
      ...emptyManifest(),
      worktrees: [entry('ours', { tickId: 't1' }), entry('both', { tickId: 't' }), entry('theirs')],
      pool: [{ path: '.loop-worktrees/.pool/a', head: 'abc', clean: true }],
    };
    const { manifest, left } = adoptLegacy(current, legacy);
    expect(manifest.worktrees.map((candidate) => [candidate.id, candidate.status])).toEqual([['both', 'merged'], ['ours', 'escalated']]);
    expect(manifest.pool).toEqual(legacy.pool);
    expect(left.worktrees.map((candidate) => candidate.id)).toEqual(['theirs']);
    expect(left.pool).toEqual([]);
  });
});
