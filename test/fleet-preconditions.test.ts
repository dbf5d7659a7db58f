/**
 * A fleet worker's tick is held to the preconditions `run` checks before any model call
 * (`src/use-cases/preconditions.ts`): a worker process wired as `loop-runtime worker` wires it, a private Postgres,
 * a real repository whose loop pushes its changes to a remote the repository does not have. The tick is refused
 * before it reserves a token — no budget entry, no worktree branch — recorded as a failed tick in the run log and
 * STATE.md, and its workflow ends in error naming the fix. Before, the worker's tick called the model and made the
 * change, and only the push failed. The same worker prints no pg deprecation warning: DBOS's idle-transaction
 * timeout is set in the connection string, not by a query queued on each new connection.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { systemDatabaseUrl } from '../src/fleet/system-database-url.js';
import { makeLoopRepo, runLogLines } from './e2e-fixtures.js';
import { eventually, queryRows, startServiceWorker, usePgCluster } from './fleet-processes.js';

const T0 = '2026-11-23T08:00:00Z';

const children: ChildProcess[] = [];
const cluster = usePgCluster(children);

const startWorker = (args: string[]) => startServiceWorker(args, children);

describe("a fleet worker's tick checks run's preconditions before any model call", () => {
  it('refuses a tick that could not deliver (no such remote): nothing reserved, no branch, a failed tick recorded', async () => {
    const url = await cluster.createDatabase('preconditions');
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { backend: 'mock', level: 'L2', verify: ['true'], delivery: { mode: 'push', remote: 'origin' } });
    const worker = await startWorker([url, repo, 'worker-a', 'run', T0]);
    const [workflow] = await eventually(
      async () => {
        const rows = await queryRows<{ status: string }>(url, `SELECT status FROM dbos.workflow_status WHERE name = 'loop-runtime.tick' AND status <> 'PENDING' AND status <> 'ENQUEUED'`);
        return rows.length > 0 ? rows : null;
      },
      () => `the tick's workflow to end; worker output:\n${worker.lines.join('\n')}`,
    );
    worker.child.kill('SIGTERM');
    await worker.exited;

    // The workflow ends in error (one attempt for the slot: its id is the slot's), and the worker says why and the fix.
    expect(workflow!.status).toBe('ERROR');
    expect(worker.lines.join('\n')).toContain('daily-triage cannot start; no model was called: daily-triage delivers by push, but the repository has no remote named "origin". To fix: add it (`git remote add origin <url>`)');
    // No model call: the budget ledger never opened a reservation, and no worktree branch was made.
    expect(await queryRows(url, 'SELECT * FROM loop_runtime_budget_entries')).toEqual([]);
    const branches = await execa('git', ['branch', '--list', '--format=%(refname:short)'], { cwd: repo });
    expect(branches.stdout.trim().split('\n')).toEqual(['main']);
    // Recorded as `run` records a refusal: a failed tick in the run log (not counted as a run) and a STATE.md note.
    const refused = (await runLogLines(repo)).filter((line) => line['kind'] === 'precondition-failed');
    expect(refused).toEqual([expect.objectContaining({ pattern: 'daily-triage', outcome: 'failed', tokens_estimate: 0, backend: 'mock' })]);
    // The refused tick is in the fleet's run history too (what `history` on any checkout reads), once.
    expect(await queryRows(url, `SELECT tick_id, kind, record->>'phase' AS phase FROM loop_runtime_runs`)).toEqual([{ tick_id: refused[0]!['tick_id'], kind: 'failed', phase: 'precondition' }]);
    expect(await readFile(join(repo, 'STATE.md'), 'utf8')).toContain('no remote named "origin"');
    // DBOS's own pool no longer queues a setting query behind pg's back (src/fleet/system-database-url.ts).
    expect(worker.lines.filter((line) => line.includes('DeprecationWarning'))).toEqual([]);
  });

  it("the worker's system-database URL gives every session the idle-in-transaction timeout at connect", async () => {
    const url = await cluster.createDatabase('session-options');
    const [setting] = await queryRows<{ idle_in_transaction_session_timeout: string }>(systemDatabaseUrl(url), 'SHOW idle_in_transaction_session_timeout');
    expect(setting?.idle_in_transaction_session_timeout).toBe('1min');
  });
});
