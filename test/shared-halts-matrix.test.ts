/**
 * Halts, pauses and the circuit breaker are shared state: through the built
 * CLI in real processes, over {file store, Postgres store} × {two processes
 * on one checkout, two checkouts of one origin}, checkout/process A and B
 * agree. A halt set by A's tick stops B's next tick before any model call;
 * `pause <id>` from A pauses B; `resume <id>` from B closes a circuit A's
 * failures opened, and the next tick runs; `status --json` and `doctor` in B
 * show the open circuit, its failures and the fix; the tick the open circuit
 * refused is in the history once (run-log line, Postgres row). Each blocked case is
 * paired with its allowed twin. Needs `dist/` and PostgreSQL 15 binaries.
 *
 * The file store keeps this state under one checkout (two checkouts share it
 * only through the state branch), so its row is two processes on one checkout.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../src/composition/runtime.js';
import { parseRunLog } from '../src/core/state/run-log.js';
import { systemClock } from '../src/adapters/clock/system-clock.js';
import { git, makeLoopRepo, runCli } from './e2e-fixtures.js';
import { queryRows, usePgCluster } from './fleet-processes.js';
import { addBareRemote, cleanupTempDirs, sh, tempDir } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);
const cluster = usePgCluster();

/** A backend plugin: logged out while LOGGED_OUT exists; every call appends its role to CALLS (the model calls). */
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

interface Tick {
  kind: string;
  reason?: string;
  message?: string;
}
interface StatusLoop {
  id: string;
  paused: boolean;
  pauses: Array<{ kind: string; by?: string; reason?: string; loop?: string }>;
  halted?: { reason: string; tickId: string };
  circuit?: { trigger: string; failures: Array<{ error: string; itemKey: string }>; fix: string };
  fix?: string;
}
interface Checkouts {
  a: string;
  b: string;
  env: Record<string, string | undefined>;
  calls: string;
  loggedOut: string;
}

type Layout = { store: 'files' | 'postgres'; topology: 'two processes' | 'two checkouts' };
const MATRIX: Layout[] = [
  { store: 'files', topology: 'two processes' },
  { store: 'postgres', topology: 'two processes' },
  { store: 'postgres', topology: 'two checkouts' },
];

async function checkouts(layout: Layout): Promise<Checkouts> {
  const a = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { verify: ['false'] });
  const calls = `${a}-calls`;
  const loggedOut = `${a}-logged-out`;
  await writeFile(join(a, 'auth-backend.mjs'), AUTH_BACKEND.replace('CALLS', JSON.stringify(calls)).replaceAll('LOGGED_OUT', JSON.stringify(loggedOut)));
  git(a, 'add', 'auth-backend.mjs');
  git(a, 'commit', '--quiet', '-m', 'backend plugin');
  let b = a;
  if (layout.topology === 'two checkouts') {
    await addBareRemote(a);
    b = join(await tempDir('loop-clone-'), 'clone');
    sh(a, ['clone', '--quiet', sh(a, ['remote', 'get-url', 'origin']).trim(), b]);
  }
  const env = { LOOP_RUNTIME_DATABASE_URL: layout.store === 'postgres' ? await cluster.createDatabase('halts') : undefined };
  return { a, b, env, calls, loggedOut };
}

const ticksOf = (stdout: string) => (cliJson(stdout) as { ticks: Tick[] }).ticks;
const callCount = async (calls: string) => (existsSync(calls) ? (await readFile(calls, 'utf8')).split('\n').filter(Boolean).length : 0);
const statusOf = async (cwd: string, env: Checkouts['env']) => {
  const status = await runCli(cwd, ['status', '--json'], env);
  expect(status.code, status.stderr).toBe(0);
  return (cliJson(status.stdout) as { store: string; loops: StatusLoop[] }).loops.find((loop) => loop.id === 'daily-triage')!;
};

// Every case makes its own checkouts, database, plugin log and logged-out flag (checkouts()): they run side by side.
// Each is a chain of built-CLI processes, so one at a time left the other forks' waits as the only overlap.
describe.concurrent.each(MATRIX)('halts, pauses and the circuit through the $store store ($topology)', (layout) => {
  it("a halt set by A's tick stops B's next tick before any model call; resume from B lets B tick", async () => {
    const { a, b, env, calls, loggedOut } = await checkouts(layout);
    const probe = (cwd: string) => runCli(cwd, ['run', 'daily-triage', '--level', 'L2', '--backend', './auth-backend.mjs', '--json'], env);
    await writeFile(loggedOut, '');
    const first = await probe(a);
    expect(first.code, first.stderr).toBe(5);
    expect(ticksOf(first.stdout)[0]).toMatchObject({ kind: 'halted', reason: 'backend-stopped' });
    expect(await callCount(calls)).toBe(1);
    await rm(loggedOut);

    // Blocked: the backend works again, but B must not call it.
    const stopped = await probe(b);
    expect(stopped.code, stopped.stderr).toBe(5);
    expect(ticksOf(stopped.stdout)[0]).toMatchObject({ kind: 'halted', reason: 'awaiting-resume' });
    expect(await callCount(calls)).toBe(1);
    expect(await statusOf(b, env)).toMatchObject({ halted: { reason: 'backend-stopped' }, fix: 'loop-runtime resume daily-triage' });

    // Allowed twin: B resumes, and B's next tick calls the model.
    const resumed = await runCli(b, ['resume', 'daily-triage', '--by', 'bo', '--json'], env);
    expect(cliJson(resumed.stdout)).toMatchObject({ cleared: { reason: 'backend-stopped' }, by: 'bo' });
    const after = await probe(b);
    expect(after.code, after.stderr).toBe(0);
    expect(ticksOf(after.stdout)[0]).toMatchObject({ kind: 'noop' });
    expect(await callCount(calls)).toBe(2);
    // On Postgres the halt is a row (kept as history, with who cleared it); never a file only A's checkout holds.
    if (env.LOOP_RUNTIME_DATABASE_URL) {
      expect(await queryRows(env.LOOP_RUNTIME_DATABASE_URL, 'SELECT pattern_id, reason, cleared_by FROM loop_runtime_halts')).toEqual([{ pattern_id: 'daily-triage', reason: 'backend-stopped', cleared_by: 'bo' }]);
    }
  });

  it('pause <id> from A pauses B (who and why shown); resume from either lets B tick again', async () => {
    const { a, b, env, calls } = await checkouts(layout);
    const probe = (cwd: string) => runCli(cwd, ['run', 'daily-triage', '--level', 'L2', '--backend', './auth-backend.mjs', '--json'], env);
    const paused = await runCli(a, ['pause', 'daily-triage', '--reason', 'flaky CI', '--by', 'ana', '--json'], env);
    expect(paused.code, paused.stderr).toBe(0);
    expect(cliJson(paused.stdout)).toMatchObject({ loop: 'daily-triage', pausedBy: [{ by: 'ana', reason: 'flaky CI', loop: 'daily-triage' }] });
    expect(await statusOf(b, env)).toMatchObject({ paused: true, pauses: [{ by: 'ana', reason: 'flaky CI' }], fix: 'loop-runtime resume daily-triage' });
    const blocked = await probe(b);
    expect(blocked.code, blocked.stderr).toBe(2);
    expect(ticksOf(blocked.stdout)[0]).toMatchObject({ kind: 'paused' });
    expect(await callCount(calls)).toBe(0);

    await runCli(b, ['resume', 'daily-triage'], env);
    expect(await statusOf(a, env)).toMatchObject({ paused: false, pauses: [] });
    const allowed = await probe(b);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(await callCount(calls)).toBe(1);

    // pause --all from A stops B too; resume --all from B lifts it.
    expect((await runCli(a, ['pause', '--all'], env)).code).toBe(0);
    expect(ticksOf((await probe(b)).stdout)[0]).toMatchObject({ kind: 'paused' });
    expect((await runCli(b, ['resume', '--all'], env)).code).toBe(0);
    expect(ticksOf((await probe(b)).stdout)[0]).toMatchObject({ kind: 'noop' });
  });

  it("resume <id> from B closes the circuit A's failures opened; status --json and doctor in B show it first", async () => {
    const { a, b, env } = await checkouts(layout);
    const mock = (cwd: string, ticks: number) => runCli(cwd, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--ticks', String(ticks), '--json'], env);
    const failing = await mock(a, 4);
    expect(failing.code, failing.stderr).toBe(5);
    expect(ticksOf(failing.stdout).at(-1)).toMatchObject({ kind: 'halted', reason: 'circuit-open' });

    const loop = await statusOf(b, env);
    expect(loop.circuit).toMatchObject({ trigger: 'same-error', fix: 'loop-runtime resume daily-triage' });
    expect(loop.circuit!.failures).toHaveLength(3);
    expect(loop.circuit!.failures[0]!.error).toContain('`false` failed');
    const statusText = await runCli(b, ['status'], env);
    expect(statusText.stdout).toContain('CIRCUIT OPEN');
    expect(statusText.stdout).toContain('loop-runtime resume daily-triage');
    const doctor = await runCli(b, ['doctor', '--json'], env);
    const checks = (cliJson(doctor.stdout) as { loops: Array<{ id: string; checks: Array<{ check: string; ok: boolean; detail: string; fix?: string }> }> }).loops[0]!.checks;
    expect(checks.find((check) => check.check === 'circuit')).toMatchObject({ ok: false, detail: expect.stringContaining('`false` failed'), fix: expect.stringContaining('loop-runtime resume daily-triage') });

    // The console's loop rows (the runtime's loops(), what /api/loops serves) read the same store.
    const opened = await openRuntime({ cwd: b, env, clock: systemClock });
    if (!opened.ok) throw new Error('configuration');
    const row = (await opened.runtime.loops()).find((entry) => entry.id === 'daily-triage')!;
    expect(row).toMatchObject({ circuit: { trigger: 'same-error', fix: 'loop-runtime resume daily-triage' }, fix: 'loop-runtime resume daily-triage', halted: null });
    expect(row.circuit!.failures).toHaveLength(3);

    // Blocked: B's tick halts on A's failures.
    const blocked = await mock(b, 1);
    expect(blocked.code).toBe(5);
    expect(ticksOf(blocked.stdout)[0]).toMatchObject({ kind: 'halted', reason: 'circuit-open' });
    // The refused tick is in the history, once: a halted-tick line in B's run log, and a run-history row on Postgres.
    const refusedId = (ticksOf(blocked.stdout)[0] as Tick & { tickId: string }).tickId;
    const refusedLines = parseRunLog(await readFile(join(b, 'loop-run-log.md'), 'utf8')).filter((entry) => entry.tick_id === refusedId);
    expect(refusedLines).toMatchObject([{ kind: 'halted-tick', reason: 'circuit-open' }]);
    if (env.LOOP_RUNTIME_DATABASE_URL) {
      expect(await queryRows(env.LOOP_RUNTIME_DATABASE_URL, `SELECT kind, record->>'reason' AS reason FROM loop_runtime_runs WHERE tick_id = '${refusedId}'`)).toEqual([{ kind: 'halted', reason: 'circuit-open' }]);
    }

    const resumed = await runCli(b, ['resume', 'daily-triage', '--json'], env);
    expect(cliJson(resumed.stdout)).toMatchObject({ circuitCleared: expect.stringContaining('3 times') });
    expect((await statusOf(a, env)).circuit).toBeUndefined();
    expect((await opened.runtime.loops()).find((entry) => entry.id === 'daily-triage')).toMatchObject({ circuit: null, fix: null });
    const doctorAfter = await runCli(a, ['doctor', '--json'], env);
    expect(doctorAfter.stdout).not.toContain('"check":"circuit"');

    // Allowed twin: B's next tick runs (the mock proposes again; the check still fails, but no circuit-open halt).
    const next = await mock(b, 1);
    expect(ticksOf(next.stdout)[0]!.kind).not.toBe('halted');
  });
});
