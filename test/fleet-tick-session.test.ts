/**
 * A fleet worker's tick is surrounded by what surrounds `run`'s
 * (`src/composition/tick-session.ts`), for real: worker processes wired as
 * `loop-runtime worker` wires them, a private Postgres, a real repository
 * (L2, mock backend, local delivery). A worker's tick that delivers a change
 * runs tick-start recovery first, is recorded for outcome tracking in the
 * fleet store (`loop_runtime_outcomes`; `metrics` reads it), and its phase events and tick-result reach the repository's
 * event journal (what `serve` shows). A worker killed with SIGKILL after all
 * of that, before its workflow was marked done, has its tick resumed by
 * another worker: the change is recorded once, and no journal line is
 * written twice.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTickEvents } from '../src/adapters/tick-events/tick-events.js';
import { makeLoopRepo, runCli } from './e2e-fixtures.js';
import { eventually, queryRows, startServiceWorker, usePgCluster } from './fleet-processes.js';
import { cliJson } from './cli-json.js';

const T0 = '2026-11-23T08:00:00Z';

const children: ChildProcess[] = [];
const cluster = usePgCluster(children);

const startWorker = (args: string[]) => startServiceWorker(args, children);


const tickWorkflows = (url: string) => queryRows<{ workflow_uuid: string; status: string; executor_id: string }>(url, `SELECT workflow_uuid, status, executor_id FROM dbos.workflow_status WHERE name = 'loop-runtime.tick'`);

/** A loop repository whose daily-triage proposes a change (mock backend, verified by `true`, kept on a local branch). */
const proposingRepo = () => makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { backend: 'mock', level: 'L2', verify: ['true'], delivery: { mode: 'local' } });

/** The proposals the fleet store holds (a worker's outcomes go to `loop_runtime_outcomes`, not to the checkout's file). */
async function proposals(url: string): Promise<Array<Record<string, unknown>>> {
  const rows = await queryRows<{ line: Record<string, unknown> }>(url, `SELECT line FROM loop_runtime_outcomes WHERE line->>'type' = 'proposal' ORDER BY seq`);
  return rows.map((row) => row.line);
}

describe('a fleet worker tick does what run does around it', () => {
  it('recovers at tick start, records the delivered change for outcomes, and journals phases and the result', async () => {
    const url = await cluster.createDatabase('session');
    const repo = await proposingRepo();
    // What a process killed mid-write left: a write-file-atomic temporary of an owned file.
    await mkdir(join(repo, '.loop-runtime'), { recursive: true });
    await writeFile(join(repo, '.loop-runtime', 'outcomes.jsonl.4242'), '');
    const worker = await startWorker([url, repo, 'worker-a', 'run', T0]);
    const [workflow] = await eventually(
      async () => {
        const rows = (await tickWorkflows(url)).filter((row) => row.status === 'SUCCESS');
        return rows.length > 0 ? rows : null;
      },
      () => `the tick to finish; worker output:\n${worker.lines.join('\n')}`,
    );
    worker.child.kill('SIGTERM');
    await worker.exited;
    const tickId = `tick-${workflow!.workflow_uuid}`;

    // Recovery ran under the lease, before the tick: the leftover moved aside and reported.
    expect(existsSync(join(repo, '.loop-runtime', 'outcomes.jsonl.4242'))).toBe(false);
    const recovery = await readFile(join(repo, '.loop-runtime', 'recovery.jsonl'), 'utf8');
    expect(recovery).toContain('outcomes.jsonl.4242');

    // Outcome tracking follows the delivered change (the one-open-proposal rule reads it); the worker's mock tick is a
    // rehearsal, so metrics count it for nothing, as for `run --backend mock`.
    const recorded = await proposals(url);
    expect(existsSync(join(repo, '.loop-runtime', 'outcomes.jsonl'))).toBe(false);
    expect(recorded).toEqual([expect.objectContaining({ pattern: 'daily-triage', tickId, delivery: 'local', source: 'tick', level: 'L2', backend: 'mock' })]);
    expect(worker.lines).toContain(`daily-triage: outcomes: following 1 delivered change(s) of ${tickId}`);
    const metrics = await runCli(repo, ['metrics', 'daily-triage', '--since', '2026-11-01', '--json'], { LOOP_RUNTIME_DATABASE_URL: url });
    expect(metrics.code, metrics.stderr).toBe(0);
    expect(cliJson(metrics.stdout)).toMatchObject({ loops: [expect.objectContaining({ pattern: 'daily-triage', changes: expect.objectContaining({ proposed: 0 }) })] });

    // The journal `serve` tails has the tick's phases and its result, redacted like run's.
    const journal = (await readTickEvents(repo)).filter((line) => line.tickId === tickId);
    const types = journal.map((line) => (line.type === 'phase-start' || line.type === 'phase-end' ? `${line.type} ${line.phase}` : line.type));
    expect(types[0]).toBe('tick-start');
    expect(types).toEqual(expect.arrayContaining(['phase-start triage', 'phase-end triage', 'phase-start implement', 'phase-end implement', 'tick-end']));
    expect(types.at(-1)).toBe('tick-result');
    expect(journal.at(-1)).toMatchObject({ type: 'tick-result', loop: 'daily-triage', result: { kind: 'proposed', tickId } });
  });

  it('a tick resumed after kill -9 records its proposal once and writes no journal line twice', async () => {
    const url = await cluster.createDatabase('session_kill');
    const repo = await proposingRepo();
    const first = await startWorker([url, repo, 'worker-a', 'die-after-proposal', T0]);
    // It dies right after its tick recorded the change and wrote its journal lines, before the workflow was done.
    expect(await first.exited).toBe('SIGKILL');
    const [pending] = await tickWorkflows(url);
    expect(pending).toMatchObject({ status: 'PENDING', executor_id: 'worker-a' });
    const tickId = `tick-${pending!.workflow_uuid}`;
    expect(await proposals(url)).toHaveLength(1);
    const before = (await readTickEvents(repo)).filter((line) => line.tickId === tickId);
    expect(before.at(-1)?.type).toBe('tick-result');

    // A later worker finds worker-a dead and resumes its tick from the recorded steps.
    const second = await startWorker([url, repo, 'worker-b', 'run', '2026-11-23T09:00:00Z']);
    await eventually(
      async () => ((await tickWorkflows(url)).some((row) => row.status === 'SUCCESS' && row.executor_id === 'worker-b') ? true : null),
      () => `worker-b to finish worker-a's tick; its output:\n${second.lines.join('\n')}`,
    );
    second.child.kill('SIGTERM');
    await second.exited;

    expect(await proposals(url)).toEqual([expect.objectContaining({ tickId, pattern: 'daily-triage' })]);
    expect(second.lines.filter((line) => line.includes('outcomes: following'))).toEqual([]);
    // worker-b replayed every event of the tick and wrote none of them again.
    expect((await readTickEvents(repo)).filter((line) => line.tickId === tickId)).toEqual(before);
    const runs = await queryRows<{ tick_id: string }>(url, 'SELECT tick_id FROM loop_runtime_runs');
    expect(runs).toEqual([{ tick_id: tickId }]);
  });
});
