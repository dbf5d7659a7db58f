/**
 * One rule for scheduled runs, checked where exit codes are computed: a tick
 * that could not run (backend stopped, circuit open, no sandbox) is 5 and
 * fails; a budget/L0 halt or a pause is 2 and a held lease 4 — notices.
 */
import { describe, expect, it } from 'vitest';
import { ExitCode, exitCodeFor, exitCodeForHalt, isFailingExitCode, LoopRuntimeError, mostSeriousExitCode, NOTICE_EXIT_CODES } from '../src/core/errors.js';
import type { HaltReason, TickResult } from '../src/core/engine/tick-result.js';
import { exitCodeForTicks, type DueLoopReport } from '../src/use-cases/run.js';
import { exitCodeForDue } from '../src/use-cases/run-due.js';

const base = { tickId: 't', patternId: 'p', level: 'L2', startedAt: 0, finishedAt: 0, tokens: 0, budget: { spentToday: 0, dailyTokenCap: 1 }, steps: [] };
const halted = (reason: HaltReason): TickResult => ({ ...base, kind: 'halted', reason, message: reason });
const noop: TickResult = { ...base, kind: 'noop', summary: 'nothing' };
const paused: TickResult = { ...base, kind: 'paused', source: 'file loop-pause-all' };
const failed: TickResult = { ...base, kind: 'failed', phase: 'triage', message: 'timeout', retryable: true };
const report = (exitCode: number): DueLoopReport => ({ id: 'p', due: true, reason: 'never-run', detail: '', intervalMs: 0, nextAt: '', action: 'ticked', exitCode });

describe('exit codes of scheduled runs', () => {
  it('every halt reason is classified: budget and L0 are notices, backend-stopped and circuit-open need a human', () => {
    const reasons: Record<HaltReason, number> = { 'budget-exhausted': 2, 'level-l0': 2, 'backend-stopped': 5, 'circuit-open': 5, 'budget-overrun': 5, 'awaiting-resume': 5, 'max-runs-per-day': 2, 'lease-lost': 5 };
    for (const [reason, code] of Object.entries(reasons)) expect([reason, exitCodeForTicks([halted(reason as HaltReason)])]).toEqual([reason, code]);
    expect(exitCodeForHalt('a-reason-added-later')).toBe(ExitCode.needsHuman);
    expect(exitCodeForTicks([paused])).toBe(ExitCode.halted);
    expect(exitCodeForTicks([noop, noop])).toBe(ExitCode.ok);
  });

  it('the most serious code wins across ticks and loops, and an unknown non-zero code is never masked', () => {
    expect(exitCodeForTicks([noop, halted('budget-exhausted'), failed])).toBe(ExitCode.tickFailed);
    expect(exitCodeForTicks([failed, halted('backend-stopped')])).toBe(ExitCode.needsHuman);
    expect(exitCodeForDue([report(0), report(4), report(2)])).toBe(ExitCode.halted);
    expect(exitCodeForDue([report(4), report(0)])).toBe(ExitCode.leaseHeld);
    expect(exitCodeForDue([report(2), report(3)])).toBe(ExitCode.configError);
    expect(exitCodeForDue([report(2), report(5), report(1)])).toBe(ExitCode.needsHuman);
    expect(mostSeriousExitCode([0, 137, 5])).toBe(137);
    expect(mostSeriousExitCode([])).toBe(ExitCode.ok);
  });

  it('a missing sandbox is 5 (needs a human), not a halt; budget and pause errors stay notices', () => {
    expect(exitCodeFor(new LoopRuntimeError('SANDBOX_UNAVAILABLE', 'no bwrap'))).toBe(ExitCode.needsHuman);
    expect(exitCodeFor(new LoopRuntimeError('BACKEND_NOT_FOUND', 'no openai'))).toBe(ExitCode.configError);
    expect(exitCodeFor(new LoopRuntimeError('BUDGET_EXHAUSTED', 'cap'))).toBe(ExitCode.halted);
    expect(exitCodeFor(new LoopRuntimeError('LEASE_HELD', 'busy'))).toBe(ExitCode.leaseHeld);
    expect(exitCodeFor(new Error('boom'))).toBe(ExitCode.tickFailed);
  });

  it('only 0, 2 and 4 pass a scheduled job', () => {
    expect(NOTICE_EXIT_CODES).toEqual([2, 4]);
    expect([0, 1, 2, 3, 4, 5, 130].filter((code) => !isFailingExitCode(code))).toEqual([0, 2, 4]);
  });
});
