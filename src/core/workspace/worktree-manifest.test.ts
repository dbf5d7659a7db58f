import { describe, expect, it } from 'vitest';
import { findEscalated, formatManifest, makeWorktreeId, parseManifest, pruneHistory, type WorktreeEntry } from './worktree-manifest.js';

const entry = (id: string, change: Partial<WorktreeEntry> = {}): WorktreeEntry => ({
  id,
  path: `.loop-worktrees/${id}`,
  branch: `loop/p/${id}`,
  baseBranch: 'main',
  pattern: 'p',
  createdAt: '2026-05-01T10:00:00.000Z',
  status: 'active',
  ...change,
});

describe('worktree manifest', () => {
  it('round-trips loop-worktree\'s format and reads a foreign or broken manifest liberally', () => {
    const manifest = { version: 1 as const, worktrees: [entry('a', { status: 'escalated' })], pool: [] };
    expect(parseManifest(formatManifest(manifest))).toEqual(manifest);
    const foreign = parseManifest(JSON.stringify({ version: 1, worktrees: [{ id: 'x', path: '.loop-worktrees/x', branch: 'loop/x', baseBranch: 'main', pattern: 'p', createdAt: '2026', status: 'weird' }, { nope: true }] }));
    expect(foreign.worktrees).toEqual([expect.objectContaining({ id: 'x', status: 'stale' })]);
    expect(parseManifest('{ not json')).toEqual({ version: 1, worktrees: [], pool: [] });
    expect(parseManifest(null).worktrees).toEqual([]);
  });

  it('finds an escalated change by id or by item key (newest first)', () => {
    const manifest = {
      version: 1 as const,
      pool: [],
      worktrees: [
        entry('old', { status: 'escalated', itemKey: 'issue#1', createdAt: '2026-05-01T09:00:00.000Z' }),
        entry('new', { status: 'escalated', itemKey: 'issue#1', createdAt: '2026-05-01T11:00:00.000Z' }),
        entry('done', { status: 'escalated', itemKey: 'issue#2', released: true }),
      ],
    };
    expect(findEscalated(manifest, 'old')?.id).toBe('old');
    expect(findEscalated(manifest, 'issue#1')?.id).toBe('new');
    expect(findEscalated(manifest, 'issue#2')).toBeUndefined();
  });

  it('makes readable unique ids and prunes old history', () => {
    const now = Date.parse('2026-05-01T10:00:00Z');
    const id = makeWorktreeId('Issue #42: Fix it!', now, new Set());
    expect(id).toMatch(/^issue-42-fix-it-[0-9a-z]+$/);
    expect(makeWorktreeId('Issue #42: Fix it!', now, new Set([id]))).toBe(`${id}-2`);
    const many = { version: 1 as const, pool: [], worktrees: Array.from({ length: 5 }, (_, index) => entry(`e${index}`, { released: true, updatedAt: `2026-05-0${index + 1}T00:00:00Z` })) };
    expect(pruneHistory(many, 2).worktrees.map((item) => item.id)).toEqual(['e3', 'e4']);
  });
});
