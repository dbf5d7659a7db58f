import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from './diagnostics.js';
import { loadRegistry } from './load-registry.js';

const entry = (id: string, extra = '') => `  - id: ${id}
    name: Daily Triage
    file: ${id}.md
    goal: A prioritized morning scan of the repository
    cadence: 1d-2h
    risk: low
    tools: [claude-code, codex]
    skills: [loop-triage]
    state: STATE.md
    phases: [report, escalate]
    human_gates: [design-decisions]${extra}
`;

describe('loadRegistry', () => {
  it('loads a valid registry', () => {
    const result = loadRegistry(`patterns:\n${entry('daily-triage')}`);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value.patterns[0]?.id).toBe('daily-triage');
      expect(result.warnings).toEqual([]);
    }
  });

  it('reports every problem at once, each with its line, column, path and fix', () => {
    const text = [
      'patterns:',
      '  - id: daily-triage',
      '    name: Daily Triage',
      '    file: daily-triage.md',
      '    goal: A prioritized morning scan of the repository',
      '    cadence: every day',
      '    risk: huge',
      '    tools: [claude-code]',
      '    skills: [loop-triage]',
      '    state: STATE.md',
      '    phases: [report, escalate]',
      '    human_gates: [design-decisions]',
      '    week_one_mode: L0',
      '',
    ].join('\n');
    const result = loadRegistry(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map(formatDiagnostic)).toEqual([
      'registry.yaml:6:5 patterns[0].cadence: "every day" is not a cadence. To fix: use 30m, 6h, 1d or a range like 5m-15m.',
      'registry.yaml:7:5 patterns[0].risk: "huge" is not one of low, medium, high. To fix: use one of: low, medium, high.',
      'registry.yaml:13:5 patterns[0].week_one_mode: "L0" is not one of L1, L2, L3. To fix: use one of: L1, L2, L3.',
    ]);
  });

  it('treats unknown fields as warnings, suggesting the closest known field', () => {
    const result = loadRegistry(`patterns:\n${entry('daily-triage', '\n    cadense: 1d\n    owner: platform-team')}`);
    expect(result.ok).toBe(true);
    expect(result.warnings.map(formatDiagnostic)).toEqual([
      'registry.yaml:13:5 patterns[0].cadense: unknown field "cadense" is ignored. To fix: did you mean "cadence"? Otherwise remove it.',
      'registry.yaml:14:5 patterns[0].owner: unknown field "owner" is ignored. To fix: remove it if it is a typo; loop-runtime does not read it.',
    ]);
  });

  it('rejects duplicate ids, pointing at the second one', () => {
    const result = loadRegistry(`patterns:\n${entry('daily-triage')}${entry('daily-triage')}`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]).toMatchObject({ line: 13, column: 5, path: 'patterns[1].id' });
    expect(result.issues[0]?.message).toContain('already used by patterns[0] (line 2)');
  });

  it('reports a missing required field at the entry that lacks it', () => {
    const text = `patterns:\n${entry('daily-triage').replace('    cadence: 1d-2h\n', '')}`;
    const result = loadRegistry(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(formatDiagnostic(result.issues[0]!)).toBe(
      'registry.yaml:2:5 patterns[0].cadence: this required field is missing. To fix: add "cadence:" with a string here.',
    );
  });

  it('turns YAML syntax errors into located diagnostics', () => {
    const result = loadRegistry('patterns:\n  - id: x\n    name: [unclosed\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]?.line).toBeGreaterThanOrEqual(3);
    expect(result.issues[0]?.message).toMatch(/^YAML syntax error/);
  });

  it('fails a file without a patterns list', () => {
    const result = loadRegistry('# nothing here\n');
    expect(result.ok).toBe(false);
  });

  it('an entry with a base id overrides only the fields it names (cost key by key); a new id must be whole', () => {
    const base = loadRegistry(`patterns:\n${entry('daily-triage', '\n    cost: {tokens_noop: 5000, suggested_daily_cap: 100000}')}`);
    if (!base.ok) throw new Error('base must load');
    const result = loadRegistry('patterns:\n  - id: daily-triage\n    cadence: 6h\n    cost: {suggested_daily_cap: 500000}\n', 'registry.yaml', { base: base.value.patterns });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.patterns[0]).toMatchObject({ id: 'daily-triage', name: 'Daily Triage', cadence: '6h', risk: 'low', cost: { tokens_noop: 5000, suggested_daily_cap: 500000 } });
    // A bad value in the override is still reported at its own line; an unknown id gets every missing field named.
    const bad = loadRegistry('patterns:\n  - id: daily-triage\n    risk: nothing\n  - id: brand-new\n    cadence: 6h\n', 'registry.yaml', { base: base.value.patterns });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    const lines = bad.issues.map(formatDiagnostic);
    expect(lines).toContain('registry.yaml:3:5 patterns[0].risk: "nothing" is not one of low, medium, high. To fix: use one of: low, medium, high.');
    expect(lines.filter((line) => line.startsWith('registry.yaml:4:5 patterns[1].'))).toHaveLength(9);
    expect(lines.some((line) => line.includes('patterns[0].name'))).toBe(false);
  });
});
