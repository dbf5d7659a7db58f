/**
 * End to end: the daily token cap holds across ticks and processes, and
 * spend survives a crash. Real CLI processes (`node bin/loop-runtime.js`),
 * real spend journal, a backend plugin that hangs until it is killed -9.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, git, makeLoopRepo, readText, runCli, runLogLines, spendEntries } from './e2e-fixtures.js';
import { cleanupTempDirs, GIT_ENV } from './git-fixtures.js';

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
    const run = JSON.parse(first.stdout) as RunJson;
    // 2 full ticks (23,260), then report-only above 80 % (triage only), then the next triage reservation does not fit.
    expect(run.ticks.map((tick) => tick.kind)).toEqual(['proposed', 'proposed', 'report', 'report', 'halted']);
    expect(run.ticks.slice(2, 4).every((tick) => tick.degraded)).toBe(true);
    const last = run.ticks.at(-1)!;
    expect(last).toMatchObject({ kind: 'halted', reason: 'budget-exhausted', tokens: 0 });

    const journal = await spendEntries(repo);
    const total = journal.reduce((sum, entry) => sum + entry.tokens, 0);
    expect(total).toBe(2 * MOCK_TICK + 2 * 2_220);
    expect(total).toBeLessThanOrEqual(CAP);
    expect(run.budget).toEqual({ spentToday: total, dailyTokenCap: CAP });
    expect(journal.some((entry) => entry.tickId === last.tickId)).toBe(false);

    // The halt is one note line in the state file, not a run-log entry.
    const state = await readText(repo, 'STATE.md');
    const notes = state.split('\n').filter((line) => line.includes('Loop halted'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^\*\*Note\*\* .* \(daily-triage\): Loop halted: .*27,700 are spent .* of the 30,000 daily cap\.$/);
    expect((await runLogLines(repo)).map((line) => line['tick_id'])).toEqual(run.ticks.slice(0, 4).map((tick) => tick.tickId));

    // A second process the same day: halted at once, no backend call, no spend.
    const second = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--ticks', '50', '--json']);
    expect(second.code).toBe(2);
    const again = JSON.parse(second.stdout) as RunJson;
    expect(again.ticks).toHaveLength(1);
    expect(again.ticks[0]).toMatchObject({ kind: 'halted', reason: 'budget-exhausted' });
    expect(await spendEntries(repo)).toEqual(journal);
    expect((await readText(repo, 'STATE.md')).split('\n').filter((line) => line.includes('Loop halted'))).toHaveLength(1);
  });
});

/** A backend plugin: triage spends 1,234 tokens and acts; the implementer says where it is, then hangs. */
const HANGING_BACKEND = `
import { writeFileSync } from 'node:fs';
const usage = (tokens) => ({ inputTokens: tokens - 34, outputTokens: 34, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });
export function createBackend() {
  return {
    specificationVersion: 'agent-backend-v1',
    name: 'hang',
    async run(request) {
      if (request.role === 'triage') {
        return { ok: true, usage: usage(1234), output: { decision: 'act', summary: 'work', findings: [], items: [{ key: 'mock#1', title: 'Tidy the example module', paths: ['src/example.ts'] }] } };
      }
      writeFileSync(MARKER, request.tickId);
      await new Promise(() => setInterval(() => {}, 1000));
    },
  };
}
`;

describe('a crash in the middle of a tick', () => {
  it('kill -9 during a hanging implementer call: triage spend stays in the journal, the next tick runs and counts it', async () => {
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

    // Triage settled before the implementer started: its spend is durable; the implementer's reservation left nothing.
    const journal = await spendEntries(repo);
    expect(journal.map((entry) => [entry.tickId, entry.phase, entry.tokens])).toEqual([[crashedTick, 'triage', 1234]]);

    const next = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--json']);
    expect(next.code).toBe(0);
    const run = JSON.parse(next.stdout) as RunJson;
    expect(run.ticks[0]!.kind).toBe('proposed');
    expect(run.budget.spentToday).toBe(1234 + MOCK_TICK);
    const after = await spendEntries(repo);
    expect(after[0]).toEqual(journal[0]);
    expect(after.reduce((sum, entry) => sum + entry.tokens, 0)).toBe(1234 + MOCK_TICK);
    // The crashed tick never recorded a run; the new one did.
    expect((await runLogLines(repo)).map((line) => line['tick_id'])).toEqual([run.ticks[0]!.tickId]);
  });
});
