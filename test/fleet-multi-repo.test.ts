/**
 * One `loop-runtime worker` (the built CLI) over three repositories on one private Postgres, each repository with
 * its own caps (`npm run build` first). Each repository is its own scope in the store: its daily cap, its spend and
 * its kill switch apply to its loops only, never to another repository's loop of the same name.
 * - A: a 10-token daily cap, less than one triage call: its call is stopped at the reservation its cap allows;
 * - B: paused (`loop-runtime pause`, written to the shared store): its loop does not tick;
 * - C: neither: its loop ticks (mock backend, L1 → report).
 * The twin of each refusal is C, served by the same worker in the same slot.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { BIN, makeLoopRepo, runCli, runLogLines } from './e2e-fixtures.js';
import { GIT_ENV, tempDir } from './git-fixtures.js';
import { eventually, spawnUntilReady, usePgCluster } from './fleet-processes.js';

const T0 = '2026-11-23T08:00:00.000Z';
const children: ChildProcess[] = [];
const cluster = usePgCluster(children);

describe('one worker, several repositories, per-repository caps', () => {
  it("a repository's daily cap and kill switch stop its own loop only", async () => {
    const url = await cluster.createDatabase('multi');
    const env = { LOOP_RUNTIME_DATABASE_URL: url };
    const capped = await makeLoopRepo({ 'src/example.ts': 'export const a = 1;\n' }, { level: 'L1', loops: { 'daily-triage': { backend: 'mock', dailyTokenCap: 10 } } });
    const paused = await makeLoopRepo({ 'src/example.ts': 'export const b = 2;\n' }, { level: 'L1', loops: { 'daily-triage': { backend: 'mock' } } });
    const free = await makeLoopRepo({ 'src/example.ts': 'export const c = 3;\n' }, { level: 'L1', loops: { 'daily-triage': { backend: 'mock' } } });
    const pause = await runCli(paused, ['pause', 'daily-triage'], env);
    expect(pause.code, pause.stderr).toBe(0);
    const scratch = await tempDir('fleet-multi-repo-');
    const clockFile = join(scratch, 'now');
    await writeFile(clockFile, T0);
    const worker = await spawnUntilReady(process.execPath, [BIN, 'worker', '--repo', capped, '--repo', paused, '--repo', free, '--clock-file', clockFile, '--poll', '0.3', '--executor-id', 'solo'], {
      env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: '', ...env },
      track: children,
      stderrLines: true,
    });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      interface RunRow {
        scope: string;
        kind: string;
        tokens: string;
        record: { budget: { spentToday: number; dailyTokenCap: number }; message?: string; source?: string };
      }
      const runs = async () => (await client.query<RunRow>('SELECT scope, kind, tokens, record FROM loop_runtime_runs')).rows;
      const rows = await eventually(async () => {
        const found = await runs();
        return found.length >= 3 ? found : null;
      }, () => `a tick of each repository; worker output:\n${worker.lines.slice(-20).join('\n')}`);
      const exit = new Promise<number | null>((resolve) => worker.child.once('exit', resolve));
      worker.child.kill('SIGTERM');
      expect(await exit).toBe(0);
      const of = (repo: string) => rows.find((row) => row.scope === repo)!;
      // C: the default cap, a full triage call.
      expect(of(free)).toMatchObject({ kind: 'report', tokens: '2220', record: { budget: { spentToday: 2220, dailyTokenCap: 100_000 } } });
      // A: its own 10-token cap, not C's spend nor C's cap: the call is stopped at the reservation its cap allows.
      expect(of(capped)).toMatchObject({ kind: 'failed', record: { budget: { dailyTokenCap: 10 }, message: expect.stringContaining('stopped at the reservation') } });
      expect(Number(of(capped).tokens)).toBeLessThanOrEqual(10);
      // B: its kill switch, in the shared store, scoped to B: no backend call, no spend.
      expect(of(paused)).toMatchObject({ kind: 'paused', tokens: '0', record: { source: expect.stringMatching(/^store pause of daily-triage by /) } });
      expect(await runLogLines(free)).toHaveLength(1);
      expect(await runLogLines(paused)).toHaveLength(0);
    } finally {
      await client.end().catch(() => undefined);
    }
  });
});
