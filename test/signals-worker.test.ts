/**
 * A fleet worker told to stop while a tick is past its drain: the real `loop-runtime worker` (built CLI) on a private
 * Postgres serves a repository whose backend plugin blocks in the implementer. SIGHUP (a closed terminal; the same
 * path as SIGTERM and SIGINT) with `--drain 0.05`: the worker takes no new tick, waits the drain out, then interrupts
 * the running tick, which settles like a `run` stopped by Ctrl-C — the backend's subprocess gone, the reservation
 * settled with what it counted, the tick's workflow done (not left for another worker to resume), an `interrupted`
 * run-log line, the half-done change in the inbox — and the worker exits 129.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, runLogLines } from './e2e-fixtures.js';
import { GIT_ENV, makeRepo, tempDir } from './git-fixtures.js';
import { eventually, queryRows, spawnUntilReady, usePgCluster } from './fleet-processes.js';
import { BACKEND, SPENT, VERIFY } from './signals-fixtures.js';
import { cliJson } from './cli-json.js';

const children: ChildProcess[] = [];
const cluster = usePgCluster(children);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a worker stopped past its drain', () => {
  it('interrupts the running tick, which settles, keeps its change and is recorded; the worker exits 128 + n', async () => {
    const url = await cluster.createDatabase('signals');
    const scratch = await tempDir('signals-worker-');
    const repo = await makeRepo({
      'src/example.ts': 'export const answer = 42;\n',
      'verify.mjs': VERIFY,
      'verify-mode.txt': 'pass\n',
      'signals-backend.mjs': BACKEND,
      'LOOP.md': '---\nloop-runtime:\n  backend: ./signals-backend.mjs\n  level: L2\n  verify: ["node verify.mjs"]\n  delivery: { mode: local }\n  loops: { daily-triage: {} }\n---\n# Loops\n',
    });
    const env = { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: '', LOOP_RUNTIME_DATABASE_URL: url, XDG_STATE_HOME: join(scratch, 'state'), SIGNALS_BLOCK_AT: 'implement' };
    const worker = await spawnUntilReady(process.execPath, [BIN, 'worker', '--repo', repo, '--poll', '0.3', '--drain', '0.05', '--settle', '120', '--executor-id', 'worker-a', '--allow-unsandboxed'], {
      env,
      track: children,
      stderrLines: true,
    });
    const blocked = await eventually(
      async () => worker.lines.map((line) => /signals-backend: blocked in implement, subprocess (\d+)/.exec(line)).find(Boolean) ?? null,
      () => `the implementer to block; the worker said:\n${worker.lines.join('\n')}`,
      { attempts: 1200 },
    );
    const pid = Number(blocked[1]);
    expect(alive(pid)).toBe(true);
    worker.child.kill('SIGHUP');

    expect(await worker.exited, worker.lines.join('\n')).toBe(129);
    expect(alive(pid)).toBe(false);
    expect(worker.lines.join('\n')).toContain('interrupted past the drain: settled');

    // Settled with what the calls counted: no reservation left open (nothing for a reconcile to charge in full).
    const entries = await queryRows<{ phase: string; state: string; spent: number | null }>(url, 'SELECT phase, state, spent FROM loop_runtime_budget_entries ORDER BY at, phase');
    expect(entries.map((entry) => [entry.phase, entry.state, Number(entry.spent)])).toEqual([
      ['triage', 'settled', SPENT.triage],
      ['implement', 'settled', SPENT.implementBlocked],
    ]);
    // The tick's workflow ended with the interrupted tick: no other worker resumes it.
    const workflows = await queryRows<{ status: string }>(url, `SELECT status FROM dbos.workflow_status WHERE name = 'loop-runtime.tick'`);
    expect(workflows.map((row) => row.status)).toEqual(['SUCCESS']);
    expect((await runLogLines(repo)).map((line) => [line['outcome'], line['tokens_estimate']])).toEqual([['interrupted', SPENT.triage + SPENT.implementBlocked]]);

    const inbox = await runCli(repo, ['inbox', '--json'], env);
    expect((cliJson(inbox.stdout) as { items: Array<{ branch: string }> }).items).toMatchObject([{ branch: expect.stringMatching(/^loop\/daily-triage\//) }]);
  });
});
