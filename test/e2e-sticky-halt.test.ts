/**
 * End to end, through the built CLI in real processes: a halt that needs a
 * human (the backend reports it is logged out: `backend-stopped`) persists.
 * The next `run` — a new process, with the backend working again — stops
 * before any model call with exit 5, `status` shows the halt, `resume`
 * clears it (recording who), and the run after that ticks.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileAttemptLedger } from '../src/adapters/attempt-ledger/file-attempt-ledger.js';
import { FileKillSwitch } from '../src/adapters/kill-switch/kill-switch.js';
import { openRuntime } from '../src/composition/runtime.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { git, makeLoopRepo, runCli, runLogLines } from './e2e-fixtures.js';
import { cleanupTempDirs } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

/** A backend plugin: logged out while the file LOGGED_OUT exists; every call appends its role to CALLS. */
const AUTH_BACKEND = `
import { appendFileSync, existsSync } from 'node:fs';
const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
export function createBackend() {
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'auth-probe',
    async run(request) {
      appendFileSync(CALLS, request.role + '\\n');
      if (existsSync(LOGGED_OUT)) return { ok: false, reason: 'auth', message: 'The agent is logged out. Run its login again.', retryable: false, usage: zero };
      return { ok: true, role: 'triage', usage: zero, output: { decision: 'noop', summary: 'nothing to do', findings: [], items: [] } };
    },
  };
}
`;

interface RunJson {
  ticks: Array<{ tickId: string; kind: string; reason?: string; message?: string; halt?: { tickId: string; reason: string } }>;
}

describe('a backend-stopped halt persists until `loop-runtime resume`', () => {
  it('halt → a second run calls no backend (exit 5) → status shows it → resume → the next run ticks', async () => {
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { verify: [] });
    const calls = `${repo}-calls`;
    const loggedOut = `${repo}-logged-out`;
    await writeFile(join(repo, 'auth-backend.mjs'), AUTH_BACKEND.replace('CALLS', JSON.stringify(calls)).replaceAll('LOGGED_OUT', JSON.stringify(loggedOut)));
    git(repo, 'add', 'auth-backend.mjs');
    git(repo, 'commit', '--quiet', '-m', 'backend plugin');
    const run = () => runCli(repo, ['run', 'daily-triage', '--level', 'L2', '--backend', './auth-backend.mjs', '--json']);
    const callCount = async () => (existsSync(calls) ? (await readFile(calls, 'utf8')).split('\n').filter(Boolean).length : 0);

    await writeFile(loggedOut, '');
    const first = await run();
    expect(first.code).toBe(5);
    const halted = (cliJson(first.stdout) as RunJson).ticks[0]!;
    expect(halted).toMatchObject({ kind: 'halted', reason: 'backend-stopped' });
    expect(await callCount()).toBe(1);

    // The human has not checked yet, but the backend happens to work again: the loop still must not tick.
    await rm(loggedOut);
    const second = await run();
    expect(second.code).toBe(5);
    const stopped = (cliJson(second.stdout) as RunJson).ticks;
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({ kind: 'halted', reason: 'awaiting-resume', halt: { tickId: halted.tickId, reason: 'backend-stopped' } });
    expect(stopped[0]!.message).toContain('loop-runtime resume daily-triage');
    expect(await callCount()).toBe(1);

    const status = await runCli(repo, ['status', '--json']);
    expect(status.code).toBe(0);
    const loop = (cliJson(status.stdout) as { loops: Array<{ id: string; paused: boolean; halted?: { tickId: string; reason: string } }> }).loops.find((entry) => entry.id === 'daily-triage')!;
    expect(loop).toMatchObject({ paused: true, halted: { tickId: halted.tickId, reason: 'backend-stopped' } });
    const statusText = await runCli(repo, ['status']);
    expect(statusText.stdout).toContain('HALTED');
    expect(statusText.stdout).toContain('loop-runtime resume daily-triage');

    const resumed = await runCli(repo, ['resume', 'daily-triage', '--by', 'tester', '--json']);
    expect(resumed.code).toBe(0);
    expect(cliJson(resumed.stdout)).toMatchObject({ loop: 'daily-triage', by: 'tester', cleared: { tickId: halted.tickId } });
    const resumeLine = (await readFile(join(repo, 'loop-run-log.md'), 'utf8')).split('\n').filter((line) => line.includes('"kind":"resumed"'));
    expect(resumeLine).toHaveLength(1);
    expect(JSON.parse(resumeLine[0]!)).toMatchObject({ pattern: 'daily-triage', by: 'tester' });

    const third = await run();
    expect(third.code).toBe(0);
    expect((cliJson(third.stdout) as RunJson).ticks[0]).toMatchObject({ kind: 'noop' });
    expect(await callCount()).toBe(2);
    // The halt, the second run's refused tick (awaiting-resume: its own line, not a halt), the tick after resume.
    expect((await runLogLines(repo)).map((line) => [line['kind'], line['reason'] ?? null])).toEqual([
      ['halted', 'backend-stopped'],
      ['halted-tick', 'awaiting-resume'],
      ['noop', null],
    ]);
  });

  it('resume of a loop that is not halted says so and writes nothing; an unknown loop is a usage error', async () => {
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { verify: [] });
    const result = await runCli(repo, ['resume', 'daily-triage']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('daily-triage: nothing to clear — it was not halted, paused or stopped by its circuit breaker.');
    expect(existsSync(join(repo, 'loop-run-log.md'))).toBe(false);
    const unknown = await runCli(repo, ['resume', 'no-such-loop', '--json']);
    expect(unknown.code).toBe(3);
  });

  it('an open circuit breaker: run halts with circuit-open (exit 5) until resume closes it; the failures stay as history', async () => {
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { verify: [] });
    // Five failed attempts of this loop in a row, as five broken ticks leave them.
    const ledger = new FileAttemptLedger({ root: repo, patternId: 'daily-triage' });
    for (let index = 0; index < 5; index += 1) {
      await ledger.append({ patternId: 'daily-triage', itemKey: `bug#${index}`, tickId: `t${index}`, at: Date.parse('2026-11-23T08:00:00Z') + index, outcome: 'failure', error: `error ${index}`, tokensUsed: 100 });
    }
    const halted = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--json']);
    expect(halted.code).toBe(5);
    expect((cliJson(halted.stdout) as RunJson).ticks[0]).toMatchObject({ kind: 'halted', reason: 'circuit-open' });

    const resumed = await runCli(repo, ['resume', 'daily-triage', '--by', 'tester']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('daily-triage: its circuit breaker is closed again by tester (it was open: The same error happened 5 times in a row');
    // One sentence for what was cleared, not "was not halted" before it.
    expect(resumed.stdout.split('\n')[0]).toMatch(/^daily-triage: its circuit breaker is closed again by tester/);
    expect((await ledger.history()).filter((attempt) => attempt.outcome === 'failure')).toHaveLength(5);

    const after = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--json']);
    expect((cliJson(after.stdout) as RunJson).ticks[0]!.kind).not.toBe('halted');
  });

  it('the console (serve) lists the halt as what stops the loop, and its Resume clears it like `resume` does', async () => {
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { verify: [] });
    const at = Date.parse('2026-11-23T08:00:00Z');
    await new FileKillSwitch({ root: repo, env: {}, patternId: 'daily-triage', runLog: 'loop-run-log.md' }).halt({ patternId: 'daily-triage', reason: 'budget-overrun', message: 'spent 9,000 of a 4,000 reservation', tickId: 't9', startedAt: at, at, tokens: 9_000 });
    const opened = await openRuntime({ cwd: repo, env: {}, clock: new FixedClock('2026-11-23T09:00:00Z') });
    if (!opened.ok) throw new Error('config');
    const loop = (await opened.runtime.loops()).find((entry) => entry.id === 'daily-triage')!;
    expect(JSON.stringify(loop)).toContain('halted (budget-overrun)');
    const still = await opened.runtime.resume({ loop: 'daily-triage' });
    expect(still).toEqual([]);
    expect((await readFile(join(repo, 'loop-run-log.md'), 'utf8')).split('\n').filter((line) => line.includes('"kind":"resumed"'))).toEqual([expect.stringContaining('"by":"the console (serve)"')]);
    expect((await opened.runtime.status()).loops[0]).toMatchObject({ paused: false });
  });
});
