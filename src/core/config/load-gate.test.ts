import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from './diagnostics.js';
import { loadGate } from './load-gate.js';

describe('loadGate', () => {
  it('loads loop-gate\'s format into a gate policy', () => {
    const result = loadGate('version: 1\ndenylist: [".env", "auth/**"]\nmaxFiles: 10\nautoMergeAllowlist: ["docs/**"]\n');
    expect(result).toEqual({
      ok: true,
      value: { source: 'gate.yaml', denylist: ['.env', 'auth/**'], maxFiles: 10, autoMergeAllowlist: ['docs/**'] },
      warnings: [],
    });
  });

  it('defaults the optional fields like loop-gate: no file limit, empty allowlist', () => {
    const result = loadGate('version: 1\ndenylist: []\n');
    expect(result.ok && result.value).toEqual({ source: 'gate.yaml', denylist: [], maxFiles: null, autoMergeAllowlist: [] });
  });

  it('reports every violation of loop-gate\'s rules, and unknown keys as warnings', () => {
    const result = loadGate('version: 2\ndenylist: .env\nmaxFiles: ten\nallowlist: ["docs/**"]\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map(formatDiagnostic)).toEqual([
      'gate.yaml:1:1 version: must be 1, found 2. To fix: set "version: 1".',
      'gate.yaml:2:1 denylist: expected a list, found ".env". To fix: give "denylist" a list.',
      'gate.yaml:3:1 maxFiles: expected a number, found "ten". To fix: give "maxFiles" a number.',
    ]);
    expect(result.warnings.map((warning) => warning.path)).toEqual(['allowlist']);
  });
});
