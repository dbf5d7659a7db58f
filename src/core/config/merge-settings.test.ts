import { describe, expect, it } from 'vitest';
import { mergeLoopSettings, topLevelSettings } from './merge-settings.js';

describe('mergeLoopSettings', () => {
  it('lets later layers win, replacing lists and merging nested objects key by key', () => {
    expect(
      mergeLoopSettings(
        { level: 'L1', verify: ['npm test'], delivery: { remote: 'upstream' }, reserve: { triage: 10 } },
        undefined,
        { level: 'L2', verify: ['npm run lint'], delivery: { mode: 'push' } },
        { backend: 'mock', reserve: { check: 5 } },
      ),
    ).toEqual({ level: 'L2', verify: ['npm run lint'], delivery: { remote: 'upstream', mode: 'push' }, reserve: { triage: 10, check: 5 }, backend: 'mock' });
  });

  it('drops version and loops from the top-level block', () => {
    expect(topLevelSettings({ version: 1, level: 'L2', loops: { x: { level: 'L3' } } })).toEqual({ level: 'L2' });
    expect(topLevelSettings(null)).toEqual({});
  });
});
