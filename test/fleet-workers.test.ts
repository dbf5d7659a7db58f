/**
 * `loop-runtime worker` for real: two worker processes (the built CLI) on one
 * private Postgres serve the same 20 repositories (mock backend, L1). The
 * workers read the time from a clock file, so the test steps them through two
 * schedule slots without waiting for the loops' cadence. From the fleet's run
 * history: every loop ticked exactly once per slot, and no loop ever had two
 * ticks at once. Each repository's run log agrees (no tick ran twice). SIGTERM
 * drains both workers, which exit 0. Needs `dist/`.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { BIN, makeLoopRepo, runCli, runLogLines } from './e2e-fixtures.js';
import { GIT_ENV, tempDir } from './git-fixtures.js';
import { eventually, type ReadyProcess, spawnUntilReady, usePgCluster } from './fleet-processes.js';
import { cliJson } from './cli-json.js';

const execFileAsync = promisify(execFile);
const REPOSITORIES = 20;
const T0 = '2026-11-23T08:00:00.000Z';
const T1 = '2026-11-26T08:00:00.000Z';

const children: ChildProcess[] = [];
const cluster = usePgCluster(children);

function startWorker(args: string[], env: Record<string, string>): Promise<ReadyProcess> {
  return spawnUntilReady(process.execPath, [BIN, 'worker', ...args], { env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: '', ...env }, track: children, stderrLines: true });
}


interface RunRow {
  scope: string;
  pattern_id: string;
  tick_id: string;
  started_at: string;
  finished_at: string;
  kind: string;
}

describe('loop-runtime worker: a fleet of two on one Postgres', () => {
  it('20 repositories, two slots: each loop ticks once per slot, never two at once; SIGTERM drains and exits 0', () => twoSlots({ restartPostgres: false }));
  // Was flaky (about one run in two) until 2026-11-23: the worker crashed on an unhandled 'error' of a pooled client
  // held across a transaction, and the test cluster ran synchronous_commit=off, so the restart threw away commits the
  // workers had been told were durable (a finished tick back to PENDING, an enqueued tick gone). See DESIGN.md.
  it('Postgres restarted in the middle of the second slot: the workers reconnect, no tick is lost or doubled', () => twoSlots({ restartPostgres: true }));
});

async function twoSlots({ restartPostgres }: { restartPostgres: boolean }): Promise<void> {
    const url = await cluster.createDatabase('workers');
    // One scaffolded repository copied: a copy has no `origin`, so its scope is its own path (as in fleet-scale).
    const template = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { backend: 'mock', level: 'L1' });
    const scratch = await tempDir('fleet-workers-');
    const repos: string[] = [];
    for (let index = 0; index < REPOSITORIES; index += 1) {
      const copy = join(scratch, `repo-${index}`);
      await execFileAsync('cp', ['-a', template, copy]);
      repos.push(copy);
    }
    const reposFile = join(scratch, 'repos');
    const clockFile = join(scratch, 'now');
    await writeFile(reposFile, `# the fleet's repositories\n${repos.join('\n')}\n`);
    await writeFile(clockFile, T0);
    const env = { LOOP_RUNTIME_DATABASE_URL: url };
    const workers = await Promise.all(
      ['worker-a', 'worker-b'].map((name) => startWorker(['--repos-file', reposFile, '--clock-file', clockFile, '--poll', '0.3', '--executor-id', name], env)),
    );
    let client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const runs = async () => (await client.query<RunRow>('SELECT scope, pattern_id, tick_id, started_at, finished_at, kind FROM loop_runtime_runs')).rows;
      let seen = 0;
      const atLeast = (count: number) =>
        eventually(
          async () => {
            seen = (await runs()).length;
            return seen >= count ? true : null;
          },
          async () => {
            const pending = JSON.stringify((await client.query(`SELECT s.workflow_uuid, s.status, (SELECT string_agg(function_name || coalesce(':' || left(error, 200), ''), ',' ORDER BY function_id) FROM dbos.operation_outputs o WHERE o.workflow_uuid = s.workflow_uuid) AS steps FROM dbos.workflow_status s WHERE status <> 'SUCCESS'`).then((result) => result.rows, (error: unknown) => String(error))));
            return `${count} ticks in the run history (${seen} so far; unfinished workflows ${pending}); worker output:\n${workers.map((worker) => worker.lines.slice(-15).join('\n')).join('\n---\n')}`;
          },
        );
      await atLeast(REPOSITORIES);
      // The second slot: three days later, every loop is due again.
      await writeFile(clockFile, T1);
      if (restartPostgres) {
        // Some ticks of the slot are done, others running or queued: the server goes away (as a crash would) and comes back.
        await atLeast(REPOSITORIES + 3);
        await client.end();
        cluster.kill();
        cluster.start();
        client = new pg.Client({ connectionString: url });
        await client.connect();
      }
      await atLeast(2 * REPOSITORIES);

      const exits = workers.map((worker) => new Promise<number | null>((resolve) => worker.child.once('exit', resolve)));
      for (const worker of workers) worker.child.kill('SIGTERM');
      expect(await Promise.all(exits)).toEqual([0, 0]);

      const rows = await runs();
      expect(rows).toHaveLength(2 * REPOSITORIES);
      const slotOf = (row: RunRow) => row.tick_id.slice(`tick-tick:${row.scope}:${row.pattern_id}:`.length);
      const keys = rows.map((row) => `${row.scope}|${row.pattern_id}|${slotOf(row)}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(new Set(rows.map((row) => row.scope)).size).toBe(REPOSITORIES);
      expect(new Set(rows.map(slotOf)).size).toBe(2);
      for (const scope of new Set(rows.map((row) => row.scope))) {
        const intervals = rows.filter((row) => row.scope === scope).map((row) => [Number(row.started_at), Number(row.finished_at)] as const).sort((a, b) => a[0] - b[0]);
        expect(intervals).toHaveLength(2);
        for (let index = 1; index < intervals.length; index += 1) expect(intervals[index]![0]).toBeGreaterThanOrEqual(intervals[index - 1]![1]);
      }
      expect(rows.every((row) => row.kind === 'report')).toBe(true);
      const workflows = await client.query<{ status: string; executor_id: string; count: string }>(`SELECT status, executor_id, count(*) FROM dbos.workflow_status GROUP BY 1, 2 ORDER BY 2`);
      expect(workflows.rows.filter((row) => row.status !== 'SUCCESS')).toEqual([]);
      expect(workflows.rows.reduce((sum, row) => sum + Number(row.count), 0)).toBe(2 * REPOSITORIES);
      process.stdout.write(`fleet workers: ticks per worker ${workflows.rows.map((row) => `${row.executor_id}=${row.count}`).join(' ')}\n`);
      for (const repo of repos) expect(await runLogLines(repo)).toHaveLength(2);

      // history reads the same rows back, in the shape the run log gives without a database.
      const history = await runCli(repos[0]!, ['history', '--json'], env);
      expect(cliJson(history.stdout)).toEqual([
        expect.objectContaining({ loop: 'daily-triage', outcome: 'report-only', kind: 'report', source: 'fleet', startedAt: expect.stringMatching(/^2026-11-26T08:00/) }),
        expect.objectContaining({ loop: 'daily-triage', outcome: 'report-only', kind: 'report', source: 'fleet', startedAt: expect.stringMatching(/^2026-11-23T08:00/) }),
      ]);
      const onFiles = await runCli(repos[0]!, ['history', 'daily-triage', '--since', '2026-11-25', '--json'], { LOOP_RUNTIME_DATABASE_URL: undefined });
      expect(cliJson(onFiles.stdout)).toEqual([expect.objectContaining({ loop: 'daily-triage', outcome: 'report-only', source: 'run-log' })]);
    } finally {
      await client.end().catch(() => undefined);
    }
}
