import { describe, expect, it } from 'vitest';
import { loadLedger } from './load-ledger.js';

describe('loadLedger', () => {
  it('loads loop-init\'s seeded ledger and keeps unknown keys', () => {
    const result = loadLedger('{\n  "goal": "Get failing CI back to green",\n  "pattern": "ci-sweeper",\n  "level": "L2",\n  "attempts": [],\n  "open": false\n}\n');
    expect(result.ok && result.value).toEqual({ goal: 'Get failing CI back to green', pattern: 'ci-sweeper', level: 'L2', attempts: [], open: false });
  });

  it('warns about a level that is not L0-L3', () => {
    const result = loadLedger('{"pattern": "ci-sweeper", "level": "L9", "attempts": []}');
    expect(result.ok).toBe(true);
    expect(result.warnings[0]).toMatchObject({ path: 'level', line: 1 });
  });

  it('locates broken JSON and schema violations', () => {
    const broken = loadLedger('{\n  "pattern": "x",\n  oops\n}');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.issues[0]?.line).toBe(3);
    const invalid = loadLedger('{\n  "attempts": [\n    {"iteration": 1, "action": "fix", "outcome": "maybe"}\n  ]\n}');
    expect(invalid.ok).toBe(false);
    if (!invalid.ok) expect(invalid.issues[0]).toMatchObject({ line: 3, path: 'attempts[0].outcome' });
  });
});
