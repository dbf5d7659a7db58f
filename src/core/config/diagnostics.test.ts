import { describe, expect, it } from 'vitest';
import { formatDiagnostic, sortDiagnostics, toLoadResult } from './diagnostics.js';
import type { Diagnostic } from './diagnostics.js';

const cadence: Diagnostic = {
  severity: 'error',
  file: 'registry.yaml',
  line: 14,
  column: 5,
  path: 'patterns[2].cadence',
  message: '"every day" is not a cadence.',
  fix: 'use 30m, 6h, 1d or a range like 5m-15m.',
};

describe('formatDiagnostic', () => {
  it('renders file:line:column, the key path, the problem and the fix on one line', () => {
    expect(formatDiagnostic(cadence)).toBe(
      'registry.yaml:14:5 patterns[2].cadence: "every day" is not a cadence. To fix: use 30m, 6h, 1d or a range like 5m-15m.',
    );
  });

  it('omits the position for whole-file problems and the path when there is none', () => {
    expect(formatDiagnostic({ ...cadence, line: 0, column: 0, path: '' })).toBe(
      'registry.yaml: "every day" is not a cadence. To fix: use 30m, 6h, 1d or a range like 5m-15m.',
    );
  });
});

describe('sortDiagnostics and toLoadResult', () => {
  it('orders by file, line and column and fails the load on any error', () => {
    const warning: Diagnostic = { ...cadence, severity: 'warning', line: 3 };
    expect(sortDiagnostics([cadence, warning]).map((d) => d.line)).toEqual([3, 14]);
    expect(toLoadResult(1, [warning])).toEqual({ ok: true, value: 1, warnings: [warning] });
    expect(toLoadResult(1, [cadence, warning])).toEqual({ ok: false, issues: [cadence], warnings: [warning] });
  });
});
