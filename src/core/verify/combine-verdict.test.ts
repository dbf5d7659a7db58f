import { describe, expect, it } from 'vitest';
import type { CheckOutput, CommandEvidence, Verdict } from '../ports/index.js';
import type { IntegrityFinding } from './check-diff-integrity.js';
import { combineVerdict, parseVerdict } from './combine-verdict.js';

const LAST_WRITE = 1_000;

function evidence(overrides: Partial<CommandEvidence> = {}): CommandEvidence {
  return { command: 'npm test', exitCode: 0, signal: null, timedOut: false, durationMs: 50, output: 'ok', finishedAt: 2_000, ...overrides };
}

const approve: CheckOutput = { verdict: 'APPROVE', reasons: ['looks right'] };
const reject: CheckOutput = { verdict: 'REJECT', reasons: ['wrong fix'] };
const escalate: CheckOutput = { verdict: 'ESCALATE_HUMAN', reasons: ['needs a product call'] };
const rejectFinding: IntegrityFinding = { kind: 'test-deleted', path: 'a.test.ts', detail: 'deleted', action: 'reject' };
const escalateFinding: IntegrityFinding = { kind: 'ci-workflow-edited', path: '.github/workflows/ci.yml', detail: 'modified', action: 'escalate' };

type Row = [name: string, evidence: CommandEvidence[], integrity: IntegrityFinding[], checker: CheckOutput | null, expected: Verdict];

const table: Row[] = [
  ['all green, checker approves', [evidence()], [], approve, 'APPROVE'],
  ['failing command, checker approves', [evidence({ exitCode: 1 })], [], approve, 'REJECT'],
  ['timed-out command, checker approves', [evidence({ exitCode: null, signal: 'SIGKILL', timedOut: true })], [], approve, 'REJECT'],
  ['killed by signal', [evidence({ exitCode: null, signal: 'SIGSEGV' })], [], approve, 'REJECT'],
  ['stale evidence (before the last write)', [evidence({ finishedAt: 999 })], [], approve, 'REJECT'],
  ['no evidence at all', [], [], approve, 'REJECT'],
  ['one of two commands fails', [evidence(), evidence({ command: 'npm run lint', exitCode: 2 })], [], approve, 'REJECT'],
  ['rerun passes after an earlier failure', [evidence({ exitCode: 1, finishedAt: 1_500 }), evidence({ finishedAt: 2_500 })], [], approve, 'APPROVE'],
  ['rerun fails after an earlier pass', [evidence({ finishedAt: 1_500 }), evidence({ exitCode: 1, finishedAt: 2_500 })], [], approve, 'REJECT'],
  ['integrity reject', [evidence()], [rejectFinding], approve, 'REJECT'],
  ['integrity escalate', [evidence()], [escalateFinding], approve, 'ESCALATE_HUMAN'],
  ['integrity escalate and reject', [evidence()], [escalateFinding, rejectFinding], approve, 'REJECT'],
  ['integrity escalate, failing command', [evidence({ exitCode: 1 })], [escalateFinding], approve, 'REJECT'],
  ['checker rejects green evidence', [evidence()], [], reject, 'REJECT'],
  ['checker escalates green evidence', [evidence()], [], escalate, 'ESCALATE_HUMAN'],
  ['checker unclear (null)', [evidence()], [], null, 'REJECT'],
  ['checker escalates a failure: still REJECT', [evidence({ exitCode: 1 })], [], escalate, 'REJECT'],
];

describe('combineVerdict truth table', () => {
  it.each(table)('%s → %s', (_name, evidenceList, integrity, checker, expected) => {
    const result = combineVerdict({ evidence: evidenceList, integrity, checker, lastWriteAt: LAST_WRITE });
    expect(result.verdict).toBe(expected);
    if (expected !== 'APPROVE') expect(result.reasons.length).toBeGreaterThan(0);
  });

  it('approves without a checker only when none is configured', () => {
    expect(combineVerdict({ evidence: [evidence()], integrity: [], checker: null, lastWriteAt: LAST_WRITE, checkerConfigured: false }).verdict).toBe('APPROVE');
  });

  it('rejects when an expected command has no evidence', () => {
    const result = combineVerdict({
      evidence: [evidence()],
      integrity: [],
      checker: approve,
      lastWriteAt: LAST_WRITE,
      expectedCommands: ['npm test', 'npm run typecheck'],
    });
    expect(result).toEqual({ verdict: 'REJECT', reasons: ['required command `npm run typecheck` has no evidence'] });
  });

  it('allows no evidence only when evidence is not required', () => {
    expect(combineVerdict({ evidence: [], integrity: [], checker: approve, lastWriteAt: 0, requireEvidence: false }).verdict).toBe('APPROVE');
  });

  it('names the stale command in its reason', () => {
    const result = combineVerdict({ evidence: [evidence({ finishedAt: 10 })], integrity: [], checker: approve, lastWriteAt: LAST_WRITE });
    expect(result.reasons).toEqual(['`npm test` passed before the last edit, so its result does not count']);
  });
});

describe('parseVerdict', () => {
  it.each<[string, Verdict]>([
    ['All good.\n\n## Verdict: APPROVE\n', 'APPROVE'],
    ['## Verdict: REJECT\nTests are weakened.', 'REJECT'],
    ['## Verdict: ESCALATE_HUMAN', 'ESCALATE_HUMAN'],
    ['### verdict: approve', 'APPROVE'],
    ['**Verdict:** APPROVE', 'APPROVE'],
    ['I would approve this.', 'REJECT'],
    ['## Verdict: MAYBE', 'REJECT'],
    ['', 'REJECT'],
    ['## Verdict: APPROVE\n...\n## Verdict: REJECT', 'REJECT'],
    ['## Verdict: APPROVE\n## Verdict: ESCALATE_HUMAN', 'REJECT'],
    ['The word APPROVE alone is not a verdict.', 'REJECT'],
  ])('%j → %s', (text, expected) => {
    expect(parseVerdict(text)).toBe(expected);
  });
});

describe('combineVerdict per test', () => {
  const run = (exitCode: number, tests?: CommandEvidence['tests'], extra: Partial<CommandEvidence> = {}): CommandEvidence => ({
    command: 'pytest -q', exitCode, signal: null, timedOut: false, durationMs: 10, output: '', finishedAt: 20, ...(tests ? { tests } : {}), ...extra,
  });
  const report = (tests: Record<string, 'passed' | 'failed'>): CommandEvidence['tests'] => ({ source: 'report', runner: 'pytest', reporter: 'pytest junit', collected: Object.keys(tests).length, tests });
  const base = run(1, report({ 't::a': 'failed', 't::b': 'failed', 't::c': 'passed' }));
  const common = { integrity: [], checker: null, checkerConfigured: false, lastWriteAt: 10, baseline: [base] };

  it('a red exit explained by an unrelated base-failing test approves, with notes; the same exit without reports rejects', () => {
    const after = run(1, report({ 't::a': 'passed', 't::b': 'failed', 't::c': 'passed' }));
    expect(combineVerdict({ ...common, evidence: [after] })).toMatchObject({ verdict: 'APPROVE', reasons: [], notes: [expect.stringContaining('`t::a` failed at the base and pass now'), expect.stringContaining('`t::b` failed at the base and still fail')] });
    expect(combineVerdict({ ...common, baseline: [], evidence: [after] })).toMatchObject({ verdict: 'REJECT', reasons: ['`pytest -q` failed with exit code 1'] });
  });

  it('a report at the base and none after rejects (what ran cannot be checked); a timeout rejects whatever the report says', () => {
    const none = run(0, { source: 'exit-code', runner: 'pytest', why: 'pytest junit via PYTEST_ADDOPTS wrote no report (pytest-junit.xml)' });
    expect(combineVerdict({ ...common, evidence: [none] }).reasons).toEqual(['`pytest -q` had a per-test report at the base (3 tests) and none now (pytest junit via PYTEST_ADDOPTS wrote no report (pytest-junit.xml)), so what ran cannot be checked']);
    const timedOut = run(1, report({ 't::a': 'passed', 't::b': 'failed', 't::c': 'passed' }), { timedOut: true });
    expect(combineVerdict({ ...common, evidence: [timedOut] })).toMatchObject({ verdict: 'REJECT', reasons: ['`pytest -q` timed out after 10 ms'] });
  });

  it('the base-test rule runs per test too', () => {
    const after = run(0, report({ 't::a': 'passed', 't::b': 'passed', 't::c': 'passed' }));
    const withBaseTests = run(1, report({ 't::a': 'passed', 't::b': 'failed' }));
    expect(combineVerdict({ ...common, evidence: [after], baseTests: [withBaseTests] }).reasons).toContain(
      "with the base's tests: `pytest -q`: 1 test(s) passed at the base and are missing now (not collected, deselected or not run): `t::c` — the change passes only with its own edited tests or test configuration, so it is not a verified fix",
    );
  });
});
