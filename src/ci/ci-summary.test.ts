import { describe, expect, it } from 'vitest';
import { ExitCode } from '../core/errors.js';
import { escapeData, loopsInRunOutput, renderCiSummary } from './ci-summary.js';

const tick = (kind: string, extra: object = {}) => ({ kind, tickId: 't1', patternId: 'ci-sweeper', tokens: 1200, ...extra });
const due = (decisions: object[], exitCode = 0) => ({ mode: 'due', exitCode, decisions });
const ticked = (id: string, tickResult: object, exitCode = 0) => ({ id, action: 'ticked', exitCode, tick: tickResult });

describe('renderCiSummary', () => {
  it('renders a --due run as a table with an annotation per failure, escalation and skipped tick', () => {
    const summary = renderCiSummary(
      due(
        [
          ticked('ci-sweeper', tick('failed', { phase: 'triage', message: 'backend timed out\nafter 60s' }), 1),
          ticked('pr-babysitter', tick('escalated', { item: { key: 'pr#4' }, reason: 'gate: auth path' })),
          { id: 'daily-triage', action: 'not-due', exitCode: 0, detail: 'next tick in 2h' },
          { id: 'issue-triage', action: 'lease-held', exitCode: 4, message: 'A tick of issue-triage is already running' },
          ticked('changelog-drafter', tick('noop', { summary: 'Probes found nothing: commits-since-last-tag: nothing.', tokens: 0 })),
        ],
        1,
      ),
    );
    expect(summary.annotations).toEqual([
      '::error title=loop-runtime ci-sweeper::failed in triage: backend timed out%0Aafter 60s',
      '::warning title=loop-runtime pr-babysitter::escalated pr#4: gate: auth path',
      '::warning title=loop-runtime issue-triage::skipped: A tick of issue-triage is already running',
    ]);
    expect(summary.markdown).toContain('| ci-sweeper | ✗ failed | 1200 | failed in triage: backend timed out after 60s |');
    expect(summary.markdown).toContain('| daily-triage | not-due | 0 | next tick in 2h |');
    expect(summary.markdown).toContain('| issue-triage | ⚠ lease-held | 0 | skipped: A tick of issue-triage is already running |');
    expect(summary.markdown).toContain('Tokens this run: 2,400.');
    expect(summary.markdown).toContain('**Result: failed (exit 1)**');
    expect(summary.exitCode).toBe(1);
  });

  it('says why a report did not act (the item has an open proposal); a plain report is its summary', () => {
    const waiting = tick('report', { summary: 'CI fails on main.', degraded: true, degradedReason: 'every item has used its attempts or has an open proposal (ci:CI@main)' });
    expect(renderCiSummary(due([ticked('ci-sweeper', waiting)])).markdown).toContain('| ci-sweeper | report | 1200 | CI fails on main. Not acted on: every item has used its attempts or has an open proposal (ci:CI@main). |');
    expect(renderCiSummary(due([ticked('ci-sweeper', tick('report', { summary: 'CI fails on main.' }))])).markdown).toContain('| ci-sweeper | report | 1200 | CI fails on main. |');
  });

  it('passes the job with a warning and a summary line for a budget halt, an L0 halt, a pause and a held lease', () => {
    const cases = [
      tick('halted', { reason: 'budget-exhausted', message: 'Daily token cap reached' }),
      tick('halted', { reason: 'level-l0', message: 'L0: nothing runs' }),
      tick('paused', { source: 'file loop-pause-all' }),
    ];
    for (const halted of cases) {
      const summary = renderCiSummary({ pattern: { id: 'ci-sweeper' }, exitCode: 2, ticks: [halted] }, { exitCode: 2 });
      expect(summary.exitCode).toBe(0);
      expect(summary.annotations).toHaveLength(1);
      expect(summary.annotations[0]).toMatch(/^::warning title=loop-runtime ci-sweeper::(halted|paused)/);
      expect(summary.markdown).toContain('**Result: ok, with notices**');
      expect(summary.markdown).toMatch(/\| ci-sweeper \| ⚠ (halted|paused) \|/);
    }
    expect(renderCiSummary({ error: { code: 'LEASE_HELD', message: 'busy' } }, { exitCode: 4 })).toMatchObject({ exitCode: 0, annotations: ['::warning title=loop-runtime LEASE_HELD::busy'] });
    expect(renderCiSummary(due([{ id: 'x', action: 'lease-held', exitCode: 4, message: 'busy' }], 4), { exitCode: 4 }).exitCode).toBe(0);
    // An error whose code is a notice (a thrown PAUSED) agrees with the CLI's exit code.
    expect(renderCiSummary(due([{ id: 'x', action: 'error', exitCode: 2, message: 'paused' }], 2), { exitCode: 2 })).toMatchObject({ exitCode: 0, annotations: ['::warning title=loop-runtime x::paused'] });
  });

  it('fails the job when a loop could not run: backend missing or logged out, circuit open, an unknown halt reason, no sandbox', () => {
    const missing = renderCiSummary(due([ticked('deps', tick('halted', { reason: 'backend-stopped', message: 'The Claude Code CLI "claude" was not found.' }), 5)], 5), { exitCode: 5 });
    expect(missing.exitCode).toBe(ExitCode.needsHuman);
    expect(missing.annotations).toEqual(['::error title=loop-runtime deps::could not run (backend-stopped): The Claude Code CLI "claude" was not found.']);
    expect(missing.markdown).toContain('**Result: failed (exit 5)**');
    // An older CLI exited 2 for every halt: the tick's JSON still decides.
    expect(renderCiSummary(due([ticked('deps', tick('halted', { reason: 'circuit-open', message: 'open' }), 2)], 2), { exitCode: 2 }).exitCode).toBe(5);
    expect(renderCiSummary({ pattern: { id: 'x' }, ticks: [tick('halted', { reason: 'some-new-reason', message: '?' })] }).exitCode).toBe(5);
    expect(renderCiSummary(due([{ id: 'x', action: 'error', exitCode: 5, message: 'Cannot run commands without a sandbox' }], 5)).exitCode).toBe(5);
    expect(renderCiSummary(due([{ id: 'x', action: 'error', exitCode: 0, message: 'boom' }])).exitCode).toBe(1);
    expect(renderCiSummary({ error: { code: 'SANDBOX_UNAVAILABLE', message: 'no bwrap' } }, { exitCode: 5 })).toMatchObject({ exitCode: 5, annotations: ['::error title=loop-runtime SANDBOX_UNAVAILABLE::no bwrap'] });
    expect(renderCiSummary({ error: { code: 'BACKEND_NOT_FOUND', message: 'no openai' } }).exitCode).toBe(3);
  });

  it('fails on a failing exit code even when the JSON looks fine, and on no JSON at all', () => {
    const quiet = due([ticked('x', tick('noop', { summary: 'nothing' }))]);
    expect(renderCiSummary(quiet, { exitCode: 0 }).exitCode).toBe(0);
    expect(renderCiSummary(quiet, { exitCode: 5 }).exitCode).toBe(5);
    expect(renderCiSummary(quiet, { exitCode: 139 }).exitCode).toBe(139);
    expect(renderCiSummary({ error: { code: 'INTERNAL', message: 'boom' } }, { exitCode: 1 }).exitCode).toBe(1);
    expect(renderCiSummary(null)).toMatchObject({ exitCode: 1 });
    expect(renderCiSummary(null, { exitCode: 2 })).toMatchObject({ exitCode: 1 });
    expect(renderCiSummary(null, { exitCode: 5 })).toMatchObject({ exitCode: 5 });
  });

  it('turns config problems into file annotations and exit 3', () => {
    const config = renderCiSummary({ ok: false, issues: [{ file: 'LOOP.md', line: 3, column: 5, message: 'bad level', fix: 'use L2' }] });
    expect(config).toMatchObject({ exitCode: 3, annotations: ['::error file=LOOP.md,line=3,col=5,title=loop-runtime config::bad level To fix: use L2'] });
    // The CLI's one error shape carries the same diagnostics under error.issues.
    const shaped = renderCiSummary({ ok: false, error: { code: 'LOOP_NOT_CONFIGURED', message: 'x', issues: [{ file: 'LOOP.md', line: 0, column: 0, message: 'not configured', fix: 'add it' }] } });
    expect(shaped).toMatchObject({ exitCode: 3, annotations: ['::error file=LOOP.md,line=0,col=0,title=loop-runtime config::not configured To fix: add it'] });
  });

  it('escapes workflow-command data', () => {
    expect(escapeData('100%\r\nx')).toBe('100%25%0D%0Ax');
  });
});

describe('renderCiSummary with per-loop metrics', () => {
  const loop = (pattern: string, extra: object = {}) => ({
    pattern,
    level: 'L2',
    changes: { proposed: 4, merged: 1, reverted: 1 },
    acceptanceRate: 0.25,
    revertRate: 0.5,
    tokens: { perMerged: 4200 },
    costUsd: { perMerged: 2.1, complete: true },
    ...extra,
  });
  const run = { pattern: { id: 'ci-sweeper' }, ticks: [tick('noop', { tokens: 0 })], exitCode: 0 };

  it('adds acceptance, revert rate, tokens and cost per merged change for each loop after the table', () => {
    const summary = renderCiSummary(run, {
      metrics: { since: '2026-11-01T00:00:00.000Z', loops: [loop('ci-sweeper'), loop('pr-babysitter', { changes: { proposed: 0, merged: 0, reverted: 0 }, acceptanceRate: null, revertRate: null, tokens: { perMerged: null }, costUsd: { perMerged: 0.4, complete: false } })] },
    });
    expect(summary.markdown).toContain('#### Loop metrics since 2026-11-01');
    expect(summary.markdown).toContain('| loop | level | acceptance (merged/proposed) | revert rate | tokens per merged change | cost per merged change |');
    expect(summary.markdown).toContain('| ci-sweeper | L2 | 25% (1/4) | 50% | 4,200 | $2.10 |');
    expect(summary.markdown).toContain('| pr-babysitter | L2 | — | — | — | $0.40+ |');
    expect(summary.markdown).toContain('`+`: some ticks spent tokens at an unknown price');
    expect(summary.markdown.indexOf('Tokens this run')).toBeLessThan(summary.markdown.indexOf('Loop metrics'));
    expect(summary.exitCode).toBe(0);
  });

  it('says why metrics are missing, and adds no section when none were asked for', () => {
    expect(renderCiSummary(run, { metrics: { unavailable: 'the configuration did not load (1 problem(s)).' } }).markdown).toContain('#### Loop metrics\n\nNot available: the configuration did not load');
    expect(renderCiSummary(run).markdown).not.toContain('Loop metrics');
  });
});

describe('loopsInRunOutput', () => {
  it('names the loop of a run and each loop of a --due run, and none for an error', () => {
    expect(loopsInRunOutput({ pattern: { id: 'ci-sweeper' }, ticks: [tick('noop')] })).toEqual(['ci-sweeper']);
    expect(loopsInRunOutput(due([ticked('a', tick('noop')), { id: 'b', action: 'not-due', exitCode: 0 }]))).toEqual(['a', 'b']);
    expect(loopsInRunOutput({ ok: false, error: { code: 'USAGE', message: 'x' } })).toEqual([]);
    expect(loopsInRunOutput(null)).toEqual([]);
  });
});
