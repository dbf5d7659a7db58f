/**
 * End to end: the daily token cap holds across ticks and processes, and
 * spend survives a crash: a phase's reservation is journalled before its
 * backend runs, so a kill -9 mid-call leaves it counted in full until the
 * next tick reconciles it. Real CLI processes (`node bin/loop-runtime.js`),
 * real spend journal, a backend plugin that hangs until it is killed -9.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBudgetLedger } from '../src/adapters/budget-ledger/file-budget-ledger.js';
import { BIN, git, journalLines, makeLoopRepo, readText, runCli, runLogLines, spendEntries } from './e2e-fixtures.js';
import { cleanupTempDirs, GIT_ENV } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

interface RunJson {
  ticks: Array<{ tickId: string; kind: string; tokens: number; reason?: string; message?: string; degraded?: boolean }>;
  budget: { spentToday: number; dailyTokenCap: number };
}

const CAP = 30_000;
/** The mock's fixed usage per role: triage 2,220, implement 6,500, check 2,910 tokens. */
const MOCK_TICK = 2_220 + 6_500 + 2_910;

describe('budget across processes', () => {
  it('--ticks 50 under a tiny cap: acts, degrades to report-only, halts with exit 2 and a note; spend never crosses the cap', async () => {
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { dailyTokenCap: CAP, verify: ['true'] });
    const first = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--ticks', '50', '--json']);
    expect(first.code).toBe(2);
    const run = cliJson(first.stdout) as RunJson;
    // One full tick (11,630); the item's proposal is then open, so the next ticks triage only (report-only: first for
    // the open proposal, then above 80 % for the budget), until the next triage reservation does not fit.
    const reports = run.ticks.length - 2;
    expect(run.ticks.map((tick) => tick.kind)).toEqual(['proposed', ...Array<string>(reports).fill('report'), 'halted']);
    expect(reports).toBe(7);
    expect(run.ticks.slice(1, -1).every((tick) => tick.degraded)).toBe(true);
    const last = run.ticks.at(-1)!;
    expect(last).toMatchObject({ kind: 'halted', reason: 'budget-exhausted', tokens: 0 });

    const journal = await spendEntries(repo);
    const total = journal.reduce((sum, entry) => sum + entry.tokens, 0);
    expect(total).toBe(MOCK_TICK + reports * 2_220);
    expect(total).toBeLessThanOrEqual(CAP);
    expect(run.budget).toEqual({ spentToday: total, dailyTokenCap: CAP });
    expect(journal.some((entry) => entry.tickId === last.tickId)).toBe(false);

    // The halt is one note line in the state file, and the halted tick's one run-log line (halted-tick, its reason).
    const state = await readText(repo, 'STATE.md');
    const notes = state.split('\n').filter((line) => line.includes('Loop halted'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^\*\*Note\*\* .* \(daily-triage\): Loop halted: .*27,170 are spent .* of the 30,000 daily cap\.$/);
    expect((await runLogLines(repo)).map((line) => line['tick_id'])).toEqual(run.ticks.map((tick) => tick.tickId));
    expect((await runLogLines(repo)).at(-1)).toMatchObject({ kind: 'halted-tick', reason: 'budget-exhausted', tokens_estimate: 0 });

    // A second process the same day: halted at once, no backend call, no spend.
    const second = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--ticks', '50', '--json']);
    expect(second.code).toBe(2);
    const again = cliJson(second.stdout) as RunJson;
    expect(again.ticks).toHaveLength(1);
    expect(again.ticks[0]).toMatchObject({ kind: 'halted', reason: 'budget-exhausted' });
    expect(await spendEntries(repo)).toEqual(journal);
    expect((await readText(repo, 'STATE.md')).split('\n').filter((line) => line.includes('Loop halted'))).toHaveLength(1);
    // The refused tick's history line, once.
    expect((await runLogLines(repo)).filter((line) => line['tick_id'] === again.ticks[0]!.tickId)).toMatchObject([{ kind: 'halted-tick', reason: 'budget-exhausted' }]);
  });
});

/** A backend plugin: triage spends 1,234 tokens and acts; the implementer says where it is, then hangs. */
const HANGING_BACKEND = `
import { writeFileSync } from 'node:fs';
const usage = (tokens) => ({ inputTokens: tokens - 34, outputTokens: 34, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });
export function createBackend() {
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'hang',
    async run(request) {
      if (request.role === 'triage') {
        return { ok: true, role: 'triage', usage: usage(1234), output: { decision: 'act', summary: 'work', findings: [], items: [{ key: 'mock#1', title: 'Tidy the example module', paths: ['src/example.ts'] }] } };
      }
      writeFileSync(MARKER, request.tickId);
      await new Promise(() => setInterval(() => {}, 1000));
    },
  };
}
`;

describe('a crash in the middle of a tick', () => {
  it('kill -9 during a hanging implementer call: its reservation stays spent, is reconciled in full, and the cap halts the loop earlier', async () => {
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { dailyTokenCap: CAP, verify: ['true'] });
    const marker = `${repo}-implementing`;
    await writeFile(join(repo, 'hang-backend.mjs'), HANGING_BACKEND.replace('MARKER', JSON.stringify(marker)));
    git(repo, 'add', 'hang-backend.mjs');
    git(repo, 'commit', '--quiet', '-m', 'backend plugin');

    const child = spawn(process.execPath, [BIN, 'run', 'daily-triage', '--level', 'L2', '--backend', './hang-backend.mjs'], {
      cwd: repo,
      stdio: 'ignore',
      env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: '' },
    });
    const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
    for (let waited = 0; !existsSync(marker); waited += 50) {
      if (waited > 20_000) throw new Error('the child tick never reached the implementer');
      await new Promise((done) => setTimeout(done, 50));
    }
    const crashedTick = (await readFile(marker, 'utf8')).trim();
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // The implementer's reservation was journalled before the backend was called, and nothing closed it.
    const journal = await journalLines(repo);
    expect(journal.map((line) => [line.kind ?? 'spend', line.tickId, line.phase])).toEqual([
      ['open', crashedTick, 'triage'],
      ['settle', crashedTick, 'triage'],
      ['open', crashedTick, 'implement'],
    ]);
    expect(journal[1]!.tokens).toBe(1234);
    const implementReservation = journal[2]!.reserved!;
    expect(implementReservation).toBe(0.4 * CAP);
    const spentAfterCrash = 1234 + implementReservation;

    // Before any new tick, a reader of the journal (what `status` uses) already counts the open reservation as spent.
    expect(await new FileBudgetLedger({ root: repo }).spentOn(journal[0]!.day, 'daily-triage')).toBe(spentAfterCrash);

    const next = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--ticks', '50', '--json']);
    expect(next.code).toBe(2);
    const run = cliJson(next.stdout) as RunJson;
    // Counting the lost phase: one full tick, one report-only tick above 80 %, then the triage reservation does not fit.
    // (Had the reservation been lost, as before, two full ticks would have run and real spend would have passed the cap.)
    expect(run.ticks.map((tick) => tick.kind)).toEqual(['proposed', 'report', 'halted']);
    const spentToday = spentAfterCrash + MOCK_TICK + 2_220;
    expect(run.budget).toEqual({ spentToday, dailyTokenCap: CAP });
    expect(spentToday).toBeLessThanOrEqual(CAP);
    expect(run.ticks[2]).toMatchObject({ kind: 'halted', reason: 'budget-exhausted' });
    expect(run.ticks[2]!.message).toContain(`${spentToday.toLocaleString('en-US')} are spent`);

    // The first new tick closed the abandoned reservation at its full amount; nothing is left open.
    const after = await journalLines(repo);
    expect(after.slice(0, 3)).toEqual(journal);
    const reconciled = after.filter((line) => line.kind === 'reconcile');
    expect(reconciled).toEqual([expect.objectContaining({ id: journal[2]!.id, tickId: crashedTick, phase: 'implement', tokens: implementReservation, reason: expect.stringContaining('crashed or killed') })]);
    expect(after.indexOf(reconciled[0]!)).toBe(3);
    const closed = new Set(after.filter((line) => line.kind === 'settle' || line.kind === 'reconcile').map((line) => line.id));
    expect(after.filter((line) => line.kind === 'open' && !closed.has(line.id))).toEqual([]);
    expect((await spendEntries(repo)).reduce((sum, entry) => sum + entry.tokens, 0)).toBe(spentToday);
    // The crashed tick never recorded a run; the new ones did (the last one halted by the cap: its halted-tick line).
    expect((await runLogLines(repo)).map((line) => line['tick_id'])).toEqual(run.ticks.map((tick) => tick.tickId));
  });
});

describe('a damaged spend journal', () => {
  it('stops the tick with a coded error naming the file and line, and runs nothing', async () => {
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { dailyTokenCap: CAP, verify: [] });
    await mkdir(join(repo, '.loop-runtime'));
    await writeFile(join(repo, '.loop-runtime', 'spend.jsonl'), 'not a journal entry\n');
    const result = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--json']);
    expect(result.code).toBe(1);
    const { error } = cliJson(result.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('BUDGET_LEDGER_UNREADABLE');
    expect(error.message).toContain(`${join(repo, '.loop-runtime', 'spend.jsonl')}:1 is corrupt`);
    expect(error.message).toContain('To fix: repair or delete line 1');
    expect(await runLogLines(repo)).toEqual([]);
    expect(await readText(repo, '.loop-runtime/spend.jsonl')).toBe('not a journal entry\n');
  });
});
