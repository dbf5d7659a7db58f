/**
 * One setting switches a project to the fleet store: with
 * LOOP_RUNTIME_DATABASE_URL set (or `store:` in LOOP.md) the built CLI's
 * `run` keeps spend, attempts, the loop lease and the run history in a
 * private Postgres instead of `.loop-runtime/`, and two checkouts of one
 * repository (same `origin`, so the same scope) share one daily cap: two
 * `run` processes started at once never spend past it. Needs `dist/`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeLoopRepo, runCli } from './e2e-fixtures.js';
import { addBareRemote, sh, tempDir } from './git-fixtures.js';
import { queryRows, usePgCluster } from './fleet-processes.js';
import { cliEnvelope, cliJson } from './cli-json.js';

const cluster = usePgCluster();

interface RunJson {
  ticks: Array<{ tickId: string; kind: string; tokens: number }>;
  budget: { spentToday: number; dailyTokenCap: number };
}

const CAP = 30_000;
const RUN = ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--ticks', '50', '--json'];


const settledSpend = (url: string) =>
  queryRows<{ spent: string }>(url, `SELECT coalesce(sum(CASE WHEN state = 'open' THEN tokens ELSE spent END), 0) AS spent FROM loop_runtime_budget_entries WHERE pattern_id = 'daily-triage'`).then(
    (found) => Number(found[0]!.spent),
  );

describe('the fleet store behind the CLI', () => {
  it('LOOP_RUNTIME_DATABASE_URL alone moves spend, attempts and run history to Postgres; status reads them back', async () => {
    const url = await cluster.createDatabase('cli_env');
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { dailyTokenCap: CAP, verify: ['true'] });
    const result = await runCli(repo, RUN, { LOOP_RUNTIME_DATABASE_URL: url });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(2);
    const run = cliJson(result.stdout) as RunJson;
    // One proposal per item: after the first tick's change, the item's proposal is open and the ticks triage only.
    expect(run.ticks.map((tick) => tick.kind)).toEqual(['proposed', ...Array<string>(run.ticks.length - 2).fill('report'), 'halted']);
    const spent = await settledSpend(url);
    expect(spent).toBe(run.ticks.reduce((sum, tick) => sum + tick.tokens, 0));
    expect(spent).toBeLessThanOrEqual(CAP);
    expect(run.budget).toEqual({ spentToday: spent, dailyTokenCap: CAP });
    expect(existsSync(join(repo, '.loop-runtime', 'spend.jsonl'))).toBe(false);
    expect(existsSync(join(repo, 'loop-ledger.json'))).toBe(false);
    const history = await queryRows<{ tick_id: string }>(url, 'SELECT tick_id FROM loop_runtime_runs ORDER BY started_at');
    expect(history.map((row) => row.tick_id)).toEqual(run.ticks.map((tick) => tick.tickId));
    expect(await queryRows(url, 'SELECT item_key FROM loop_runtime_attempts')).toHaveLength(1);
    expect(await queryRows(url, 'SELECT key FROM loop_runtime_leases')).toEqual([]);

    const status = await runCli(repo, ['status', '--json'], { LOOP_RUNTIME_DATABASE_URL: url });
    const report = cliJson(status.stdout) as { store: string; loops: Array<{ id: string; spentToday: number; rehearsalSpentToday: number }> };
    expect(report.store).toMatch(/^postgres postgresql:\/\/postgres@127\.0\.0\.1:\d+\/cli_env_\d+_\d+ \(scope /);
    // The ticks ran with --backend mock: shown beside the loop's real cap, never counted against it (as on files).
    expect(report.loops.find((loop) => loop.id === 'daily-triage')).toMatchObject({ spentToday: 0, rehearsalSpentToday: spent });

    // Without the variable the same repository is back on files, with its own (empty) ledger.
    const onFiles = await runCli(repo, ['status', '--json'], { LOOP_RUNTIME_DATABASE_URL: undefined });
    expect(cliJson(onFiles.stdout)).toMatchObject({ store: 'files under .loop-runtime/', loops: [{ id: 'daily-triage', spentToday: 0 }] });
  });

  it('store: { url: env:NAME } in LOOP.md: two checkouts of one origin, two run processes at once, one cap', async () => {
    const url = await cluster.createDatabase('cli_cap');
    const origin = await makeLoopRepo(
      { 'src/example.ts': 'export const answer = 42;\n' },
      { dailyTokenCap: CAP, verify: ['true'], store: { url: 'env:FLEET_DATABASE' } },
    );
    await addBareRemote(origin);
    const second = join(await tempDir('loop-clone-'), 'clone');
    sh(origin, ['clone', '--quiet', sh(origin, ['remote', 'get-url', 'origin']).trim(), second]);
    const env = { FLEET_DATABASE: url, LOOP_RUNTIME_DATABASE_URL: undefined };
    const results = await Promise.all([runCli(origin, RUN, env), runCli(second, RUN, env)]);
    for (const result of results) expect([2, 4], result.stderr).toContain(result.code);
    process.stdout.write(`fleet store: two run processes on one loop exited ${results.map((result) => result.code).join(' and ')}\n`);
    const ran = results.filter((result) => result.code === 2).map((result) => cliJson(result.stdout) as RunJson);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    const reported = ran.flatMap((run) => run.ticks).reduce((sum, tick) => sum + tick.tokens, 0);
    const spent = await settledSpend(url);
    expect(spent).toBe(reported);
    expect(spent).toBeLessThanOrEqual(CAP);
    // A tick in either checkout now halts at once: the cap is the fleet's, not the checkout's.
    const after = await runCli(second, RUN, env);
    expect(after.code).toBe(2);
    expect((cliJson(after.stdout) as RunJson).ticks).toMatchObject([{ kind: 'halted', tokens: 0 }]);
    for (const checkout of [origin, second]) expect(existsSync(join(checkout, '.loop-runtime', 'spend.jsonl'))).toBe(false);

    // The variable the setting names must be set: exit 3, never a silent fall-back to files.
    const unset = await runCli(origin, RUN, { FLEET_DATABASE: undefined });
    expect(unset.code).toBe(3);
    expect(cliEnvelope(unset.stdout)).toMatchObject({ ok: false, error: { code: 'CONFIG_INVALID', message: expect.stringContaining('FLEET_DATABASE is not set') } });
  });
});
