import { describe, expect, it } from 'vitest';
import { escapeData, renderCiSummary } from './ci-summary.js';

const tick = (kind: string, extra: object = {}) => ({ kind, tickId: 't1', patternId: 'ci-sweeper', tokens: 1200, ...extra });

describe('renderCiSummary', () => {
  it('renders a --due run as a table with an annotation per failure, escalation and skipped tick', () => {
    const summary = renderCiSummary({
      mode: 'due',
      exitCode: 1,
      decisions: [
        { id: 'ci-sweeper', action: 'ticked', exitCode: 1, tick: tick('failed', { phase: 'triage', message: 'backend timed out\nafter 60s' }) },
        { id: 'pr-babysitter', action: 'ticked', exitCode: 0, tick: tick('escalated', { item: { key: 'pr#4' }, reason: 'gate: auth path' }) },
        { id: 'daily-triage', action: 'not-due', exitCode: 0, detail: 'next tick in 2h' },
        { id: 'issue-triage', action: 'lease-held', exitCode: 4, message: 'A tick of issue-triage is already running' },
        { id: 'changelog-drafter', action: 'ticked', exitCode: 0, tick: tick('noop', { summary: 'Probes found nothing: commits-since-last-tag: nothing.', tokens: 0 }) },
      ],
    });
    expect(summary.annotations).toEqual([
      '::error title=loop-runtime ci-sweeper::failed in triage: backend timed out%0Aafter 60s',
      '::warning title=loop-runtime pr-babysitter::escalated pr#4: gate: auth path',
      '::notice title=loop-runtime issue-triage::skipped: A tick of issue-triage is already running',
    ]);
    expect(summary.markdown).toContain('| ci-sweeper | failed | 1200 | failed in triage: backend timed out after 60s |');
    expect(summary.markdown).toContain('| daily-triage | not-due | 0 | next tick in 2h |');
    expect(summary.markdown).toContain('Tokens this run: 2,400.');
    expect(summary.exitCode).toBe(1);
  });

  it('renders a single run <id> --json and lets halts pass the job with a warning', () => {
    const summary = renderCiSummary({ pattern: { id: 'ci-sweeper' }, exitCode: 2, ticks: [tick('halted', { reason: 'budget-exhausted', message: 'Daily token cap reached' })] });
    expect(summary.annotations).toEqual(['::warning title=loop-runtime ci-sweeper::halted: Daily token cap reached']);
    expect(summary.exitCode).toBe(0);
  });

  it('turns errors, config problems and missing output into annotations and failing codes', () => {
    expect(renderCiSummary({ error: { code: 'LEASE_HELD', message: 'busy' } })).toMatchObject({ exitCode: 0, annotations: ['::notice title=loop-runtime LEASE_HELD::busy'] });
    expect(renderCiSummary({ error: { code: 'INTERNAL', message: 'boom' } }, { exitCode: 1 }).exitCode).toBe(1);
    const config = renderCiSummary({ ok: false, issues: [{ file: 'LOOP.md', line: 3, column: 5, message: 'bad level', fix: 'use L2' }] });
    expect(config).toMatchObject({ exitCode: 3, annotations: ['::error file=LOOP.md,line=3,col=5,title=loop-runtime config::bad level To fix: use L2'] });
    expect(renderCiSummary(null)).toMatchObject({ exitCode: 1 });
  });

  it('escapes workflow-command data', () => {
    expect(escapeData('100%\r\nx')).toBe('100%25%0D%0Ax');
  });
});
