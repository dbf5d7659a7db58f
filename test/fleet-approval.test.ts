/**
 * Human approval in a fleet is a durable wait, for real: the built CLI's
 * `loop-runtime worker` processes on a private Postgres, real repositories,
 * the mock backend writing `.env` (the gate escalates it), workers reading
 * the time from a clock file.
 *
 * - approve: worker-a's tick escalates and starts the change's approval wait;
 *   worker-a is killed -9 and its worktree is lost with it (another machine's
 *   disk), so the inbox lists the change from the fleet; worker-b resumes the wait; the clock moves three days; `approve`
 *   (the built CLI) first gets the gate's "needs --yes", then `approve --yes`
 *   twice at once: exactly one acts — worker-b re-creates the change from
 *   the tick's capture, commits it with its trailers and records the decision
 *   in the run history and the run log, dated by the clock — and the other
 *   is refused; an id nobody waits for is an error with the fix.
 * - reject, through the console's API: the change is discarded, the decision
 *   recorded; a second reject is refused.
 * Needs `dist/` (npm run build).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../src/adapters/clock/system-clock.js';
import { startServer } from '../src/server/serve.js';
import { BIN, makeLoopRepo, runCli, runLogLines } from './e2e-fixtures.js';
import { GIT_ENV, sh, tempDir } from './git-fixtures.js';
import { eventually, type ReadyProcess, spawnUntilReady, usePgCluster } from './fleet-processes.js';
import { cliEnvelope, cliJson } from './cli-json.js';

const T0 = '2026-11-23T08:00:00.000Z';
const T3 = '2026-11-26T09:30:00.000Z';
const SETTINGS = { backend: 'mock', level: 'L2', backendOptions: { targetPath: '.env' }, verify: ['true'], delivery: { mode: 'local' } };

const children: ChildProcess[] = [];
const cluster = usePgCluster(children);

type Worker = ReadyProcess;

function startWorker(args: string[], env: Record<string, string>): Promise<Worker> {
  return spawnUntilReady(process.execPath, [BIN, 'worker', ...args], { env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: '', ...env }, track: children });
}


async function killed(worker: Worker): Promise<void> {
  const exited = new Promise((resolve) => worker.child.once('exit', resolve));
  worker.child.kill('SIGKILL');
  await exited;
}

interface Approval {
  workflow_uuid: string;
  status: string;
  executor_id: string;
}

// The two cases share only the cluster (a database, a repository, a scratch directory and workers each) and spend
// most of their time in DBOS's 10 s recv polls and worker start-ups: side by side, the file takes the longer one.
describe.concurrent('fleet: human approval is a durable wait', () => {
  it('approve three days later, after the worker that escalated died with its disk: the change is re-created, committed once, recorded; a second decision is refused', async () => {
    const url = await cluster.createDatabase('approval');
    const scratch = await tempDir('fleet-approval-');
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, SETTINGS);
    const clockFile = join(scratch, 'now');
    await writeFile(clockFile, T0);
    const env = { LOOP_RUNTIME_DATABASE_URL: url, XDG_STATE_HOME: join(scratch, 'state') };
    const client = new pg.Client({ connectionString: url });
    const workerA = await startWorker(['--repo', repo, '--clock-file', clockFile, '--poll', '0.3', '--executor-id', 'worker-a'], env);
    await client.connect();
    try {
      const approvals = async () => (await client.query<Approval>(`SELECT workflow_uuid, status, executor_id FROM dbos.workflow_status WHERE name = 'loop-runtime.approval'`)).rows;
      const waiting = await eventually(
        async () => ((await approvals())[0]?.status === 'PENDING' ? (await approvals())[0]! : null),
        () => `an approval wait; worker-a said:\n${workerA.lines.join('\n')}`,
        { attempts: 600 },
      );
      expect(waiting.executor_id).toBe('worker-a');
      const runs = await client.query<{ tick_id: string; kind: string }>('SELECT tick_id, kind FROM loop_runtime_runs');
      expect(runs.rows).toEqual([{ tick_id: expect.stringMatching(/^tick-tick:/), kind: 'escalated' }]);
      const tickId = runs.rows[0]!.tick_id;

      // The inbox lists the change once: this disk holds it, and the fleet waits for it.
      const inbox = cliJson((await runCli(repo, ['inbox', '--json'], env)).stdout) as { items: Array<{ id: string; branch: string; path: string; itemKey: string }> };
      expect(inbox.items).toHaveLength(1);
      const change = inbox.items[0]!;
      expect(waiting.workflow_uuid.startsWith('approval:') && waiting.workflow_uuid.endsWith(`:${change.id}`)).toBe(true);

      // worker-a dies, and its disk with it: the worktree, its branch and the worktree manifest are gone.
      await killed(workerA);
      sh(repo, ['worktree', 'remove', '--force', change.path]);
      sh(repo, ['branch', '-D', change.branch]);
      await rm(dirname(change.path), { recursive: true, force: true });
      // The inbox still lists the change, from the fleet's wait.
      const fleetInbox = await runCli(repo, ['inbox', '--json'], env);
      expect(cliJson(fleetInbox.stdout).items).toEqual([expect.objectContaining({ id: change.id, itemKey: 'mock#1', branch: change.branch, keptBy: 'worker-a' })]);
      expect((await runCli(repo, ['inbox'], env)).stdout).toContain(`kept by fleet worker worker-a`);

      // worker-b serves the same repository (it polls once, at the same slot: no new tick).
      const workerB = await startWorker(['--repo', repo, '--clock-file', clockFile, '--poll', '86400', '--executor-id', 'worker-b'], env);
      await writeFile(clockFile, T3);

      // The gate still escalates .env: without --yes nothing is applied, and the change keeps waiting.
      const asking = Date.now();
      const refused = await runCli(repo, ['approve', change.id, '--json'], env, { timeoutMs: 150_000 });
      process.stdout.write(`fleet approval: first reply ${Date.now() - asking} ms after approve was sent (worker-b had to resume the wait first)\n`);
      const debug = async () => `${refused.stderr}${refused.stdout}\napprovals: ${JSON.stringify((await client.query('SELECT workflow_uuid, status, executor_id, application_version, application_name, queue_name FROM dbos.workflow_status')).rows)}\nsteps: ${JSON.stringify((await client.query('SELECT workflow_uuid, function_name, left(error, 300) AS error FROM dbos.operation_outputs ORDER BY workflow_uuid, function_id')).rows)}\nworker-b:\n${workerB.lines.join('\n')}`;
      expect(refused.code, await debug()).toBe(2);
      expect(cliJson(refused.stdout)).toMatchObject({ status: 'needs-confirmation', id: change.id, paths: ['.env'] });
      expect((await approvals())[0]).toMatchObject({ status: 'PENDING', executor_id: 'worker-b' });

      // Two approvals at once: one acts, the other is refused.
      const deciding = Date.now();
      const both = await Promise.all([runCli(repo, ['approve', change.id, '--yes', '--json'], env, { timeoutMs: 150_000 }), runCli(repo, ['approve', change.itemKey, '--yes', '--json'], env, { timeoutMs: 150_000 })]);
      process.stdout.write(`fleet approval: two approvals at once answered in ${Date.now() - deciding} ms\n`);
      const applied = both.filter((result) => result.code === 0);
      const second = both.filter((result) => result.code !== 0);
      expect(applied, both.map((result) => result.stdout + result.stderr).join('\n')).toHaveLength(1);
      const result = cliJson(applied[0]!.stdout) as { status: string; commit: string; branch: string };
      expect(result).toMatchObject({ status: 'applied', id: change.id, branch: change.branch, paths: ['.env'] });
      expect(second[0]!.code).toBe(3);
      expect(cliEnvelope(second[0]!.stdout)).toMatchObject({ ok: false, error: { code: 'USAGE' } });

      // Committed once, with its trailers, on the re-created branch.
      expect(sh(repo, ['rev-parse', change.branch]).trim()).toBe(result.commit);
      expect(sh(repo, ['log', '-1', '--format=%(trailers:key=Loop-Approved-By,valueonly)%(trailers:key=Loop-Tick,valueonly)%(trailers:key=Loop-Pattern,valueonly)', change.branch]).trim().split('\n')).toEqual([
        'human',
        tickId,
        'daily-triage',
      ]);
      expect(sh(repo, ['show', '--name-only', '--format=', change.branch]).trim()).toBe('.env');
      expect(sh(repo, ['rev-list', '--count', `main..${change.branch}`]).trim()).toBe('1');

      // Recorded: the run history (the tick's row: the commit and the decision), the run log and STATE.md, at the clock's time.
      const row = await client.query<{ commit_sha: string; phases: Array<{ phase: string; note: string }> }>('SELECT commit_sha, phases FROM loop_runtime_runs WHERE tick_id = $1', [tickId]);
      expect(row.rows[0]!.commit_sha).toBe(result.commit);
      expect(row.rows[0]!.phases.at(-1)).toEqual({ phase: 'escalate', tokens: 0, note: `${change.id}: approved by a human; committed ${result.commit.slice(0, 12)} on ${change.branch}` });
      expect((await runLogLines(repo)).filter((line) => line['kind'] === 'human-approved')).toEqual([expect.objectContaining({ run_id: expect.stringMatching(/^2026-11-26T09:3\d:\d\dZ$/), tick_id: tickId, outcome: 'fix-proposed' })]);
      expect((await approvals())[0]).toMatchObject({ status: 'SUCCESS', executor_id: 'worker-b' });
      const steps = await client.query<{ function_name: string }>(`SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name LIKE 'approval.%' ORDER BY function_id`, [waiting.workflow_uuid]);
      expect(steps.rows.map((step) => step.function_name)).toEqual(['approval.approve', 'approval.approve']);

      // Decided: a third approval is refused with what was decided; an id nobody waits for is an error with the fix.
      const again = await runCli(repo, ['approve', change.id, '--yes', '--json'], env);
      expect(again.code).toBe(3);
      expect(cliJson(again.stdout).error.message).toMatch(new RegExp(`${change.id} was already approved by a human at 2026-11-26T09:3\\d:\\d\\d\\.\\d+Z \\(committed ${result.commit.slice(0, 12)}`));
      const unknown = await runCli(repo, ['approve', 'no-such-change', '--json'], env);
      expect(unknown.code).toBe(3);
      expect(cliEnvelope(unknown.stdout)).toMatchObject({ ok: false, error: { code: 'USAGE', message: expect.stringContaining('Nothing waits for a decision under "no-such-change"'), fix: expect.stringContaining('loop-runtime inbox') } });
      expect(cliJson((await runCli(repo, ['inbox', '--json'], env)).stdout).items).toEqual([]);
      await killed(workerB);
    } finally {
      await client.end();
    }
  });
  it('reject through the console API after the escalating worker stopped (SIGTERM does not drain waits): the next worker discards the change and records it; a second decision is refused', async () => {
    const url = await cluster.createDatabase('rejection');
    const scratch = await tempDir('fleet-reject-');
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 7;\n' }, SETTINGS);
    const clockFile = join(scratch, 'now');
    await writeFile(clockFile, T0);
    const env = { LOOP_RUNTIME_DATABASE_URL: url, XDG_STATE_HOME: join(scratch, 'state') };
    const worker = await startWorker(['--repo', repo, '--clock-file', clockFile, '--poll', '0.3', '--executor-id', 'worker-a'], env);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const server = await startServer({ repos: [repo], env: { ...process.env, ...env }, clock: systemClock, port: 0 });
    try {
      const approvals = async () => (await client.query<Approval>(`SELECT workflow_uuid, status, executor_id FROM dbos.workflow_status WHERE name = 'loop-runtime.approval'`)).rows;
      await eventually(async () => ((await approvals())[0]?.status === 'PENDING' ? true : null), () => `an approval wait; worker-a said:\n${worker.lines.join('\n')}`, { attempts: 600 });
      const api = async (path: string, method = 'GET') => {
        const response = await fetch(`${server.url}${path}`, { method, headers: { 'x-loop-runtime-token': server.token, origin: `http://127.0.0.1:${server.port}` } });
        return { status: response.status, body: (await response.json()) as Record<string, any> };
      };
      const inbox = await api('api/inbox');
      expect(inbox.body['items']).toEqual([expect.objectContaining({ kind: 'escalated', pattern: 'daily-triage', itemKey: 'mock#1' })]);
      const change = inbox.body['items'][0] as { id: string; branch: string };

      // SIGTERM drains ticks, not approval waits (the drain is 600 s; a wait is abandoned at its next poll): each worker exits 0, and the next takes the wait over.
      const stopped = async (stopping: Worker) => {
        const exited = new Promise<number | null>((resolve) => stopping.child.once('exit', resolve));
        stopping.child.kill('SIGTERM');
        return exited;
      };
      expect(await stopped(worker)).toBe(0);
      expect((await approvals())[0]).toMatchObject({ status: 'PENDING', executor_id: 'worker-a' });
      const workerB = await startWorker(['--repo', repo, '--clock-file', clockFile, '--poll', '86400', '--executor-id', 'worker-b'], env);
      await eventually(async () => ((await approvals())[0]?.executor_id === 'worker-b' ? true : null), () => 'worker-b to resume the wait', { attempts: 600 });
      const stopping = Date.now();
      expect(await stopped(workerB)).toBe(0);
      process.stdout.write(`fleet approval: a worker with a wait pending exited ${Date.now() - stopping} ms after SIGTERM (drain 600 s)\n`);
      const workerC = await startWorker(['--repo', repo, '--clock-file', clockFile, '--poll', '86400', '--executor-id', 'worker-c'], env);
      await writeFile(clockFile, T3);

      const rejected = await api(`api/inbox/${change.id}/reject`, 'POST');
      expect(rejected).toMatchObject({ status: 200, body: { ok: true, result: { status: 'rejected', id: change.id, branch: change.branch } } });
      expect(() => sh(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${change.branch}`])).toThrow();
      expect((await approvals())[0]).toMatchObject({ status: 'SUCCESS', executor_id: 'worker-c' });
      expect((await runLogLines(repo)).filter((line) => line['kind'] === 'human-rejected')).toEqual([expect.objectContaining({ run_id: expect.stringMatching(/^2026-11-26T09:3\d:\d\dZ$/), outcome: 'no-op' })]);
      const row = await client.query<{ commit_sha: string | null; phases: Array<{ note: string }> }>('SELECT commit_sha, phases FROM loop_runtime_runs');
      expect(row.rows).toEqual([{ commit_sha: null, phases: expect.arrayContaining([{ phase: 'escalate', tokens: 0, note: `${change.id}: rejected by a human; ${change.branch} discarded` }]) }]);

      // Decided once: a second reject, or an approve after it, is refused with what was decided.
      for (const path of [`api/inbox/${change.id}/reject`, `api/inbox/${change.id}/approve`]) {
        const again = await api(path, 'POST');
        expect(again).toMatchObject({ status: 404, body: { ok: false, error: { code: 'USAGE', message: expect.stringContaining(`${change.id} was already rejected by a human`) } } });
      }
      expect((await api('api/inbox')).body['items']).toEqual([]);
      const cli = await runCli(repo, ['reject', change.id, '--json'], env);
      expect(cli.code).toBe(3);
      expect(cliJson(cli.stdout).error.message).toContain('was already rejected');
      await killed(workerC);
    } finally {
      await server.close();
      await client.end();
    }
  });
});
