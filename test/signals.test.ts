/**
 * Every way a tick can be stopped settles like Ctrl-C. The built CLI runs a real tick on a temporary git repository
 * with a scripted backend plugin that blocks at a chosen phase — triage, the implementer, the verification command,
 * the checker — and says so on stderr (or, for the verification command, by a marker file the command writes in the
 * worktree). Then the test sends SIGTERM, SIGHUP or SIGINT: every signal × every phase.
 *
 * Each case asserts: exit 128 + n; the blocked call's subprocess group gone; every reservation settled with what the
 * backend counted (never the reservation) and nothing left for the next tick's reconcile; no lease file; one run-log
 * line `interrupted` with the settled tokens; a state-file note naming the signal; the half-done change kept and
 * listed by `inbox` when one existed (none when the tick stopped in triage); and no failed attempt in
 * loop-ledger.json (an interrupted verification is unverified, never rejected). Also: `run --due`; a stop during
 * the push (after verification the tick commits and delivers, exit 143); `serve` closing on SIGHUP and SIGINT; and a
 * second signal exiting at once. The worker's case is test/signals-worker.test.ts.
 *
 * No sleeps: every wait is on output, a file or an exit event, bounded only by the test's timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './e2e-fixtures.js';
import { BACKEND, SPENT, VERIFY } from './signals-fixtures.js';
import { addBareRemote, cleanupTempDirs, GIT_ENV, makeRepo, sh, tempDir } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

type Phase = 'triage' | 'implement' | 'verify' | 'check';
type StopSignal = 'SIGTERM' | 'SIGHUP' | 'SIGINT';
const EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

interface SpendEntry {
  kind?: string;
  id: string;
  phase: string;
  tokens?: number;
  reserved?: number;
  tickId: string;
}

async function makeSignalsRepo(phase: Phase): Promise<string> {
  const root = await makeRepo({
    'src/example.ts': 'export const answer = 42;\n',
    'verify.mjs': VERIFY,
    'verify-mode.txt': phase === 'verify' ? 'block\n' : 'pass\n',
    'signals-backend.mjs': BACKEND,
    'LOOP.md': '---\nloop-runtime:\n  verify: ["node verify.mjs"]\n  loops: { daily-triage: {} }\n---\n# Loops\n',
  });
  return root;
}

interface Running {
  child: ChildProcess;
  stderr: () => string;
  stdout: () => string;
  exited: Promise<number | null>;
  /** Resolves once stderr matches. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

function startRun(root: string, env: Record<string, string>, args: string[] = ['daily-triage']): Running {
  const child = spawn(process.execPath, [BIN, 'run', ...args, '--level', 'L2', '--backend', './signals-backend.mjs', '--allow-unsandboxed'], {
    cwd: root,
    env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ pattern: RegExp; done: (match: RegExpExecArray) => void }> = [];
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of waiters.splice(0)) {
      const match = waiter.pattern.exec(stderr);
      if (match) waiter.done(match);
      else waiters.push(waiter);
    }
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return {
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    waitFor: (pattern) =>
      new Promise((done, fail) => {
        const match = pattern.exec(stderr);
        if (match) return done(match);
        waiters.push({ pattern, done });
        void exited.then(() => {
          const late = pattern.exec(stderr);
          if (late) done(late);
          else fail(new Error(`the CLI exited before ${pattern}: ${stderr}${stdout}`));
        });
      }),
  };
}

/** Waits for a file a sandboxed command writes (no output reaches the CLI's stderr while it runs). */
async function waitForFile(path: string, running: Running): Promise<void> {
  let ended = false;
  void running.exited.then(() => (ended = true));
  while (!existsSync(path)) {
    if (ended) throw new Error(`the CLI exited before ${path} appeared: ${running.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Host pids whose working directory is `dir` (a sandboxed command's own pid is its namespace's, not the host's). */
async function processesIn(dir: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await readlink(join('/proc', entry, 'cwd')).catch(() => null);
    if (cwd === dir) found.push(Number(entry));
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function journal(root: string): Promise<SpendEntry[]> {
  const text = await readFile(join(root, '.loop-runtime', 'spend.jsonl'), 'utf8');
  return text.trim().split('\n').map((line) => JSON.parse(line) as SpendEntry);
}

async function runLogLines(root: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(root, 'loop-run-log.md'), 'utf8');
  const entries = text.slice(text.indexOf('<!-- Loop appends below this line -->'));
  return entries.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function cli(root: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: root, env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  return { code, stdout, stderr };
}

/** What each phase's tick settles: the blocked call's count, the earlier calls' counts; never a reservation. */
const SETTLED: Record<Phase, Record<string, number>> = {
  triage: { triage: SPENT.triageBlocked },
  implement: { triage: SPENT.triage, implement: SPENT.implementBlocked },
  verify: { triage: SPENT.triage, implement: SPENT.implement },
  check: { triage: SPENT.triage, implement: SPENT.implement, check: SPENT.checkBlocked },
};

const PHASES: Phase[] = ['triage', 'implement', 'verify', 'check'];
const SIGNALS: StopSignal[] = ['SIGTERM', 'SIGHUP', 'SIGINT'];
const CASES = PHASES.flatMap((phase) => SIGNALS.map((signal) => ({ phase, signal })));

describe('a stop signal during run settles the tick like Ctrl-C', () => {
  it.each(CASES)('$signal during $phase', async ({ phase, signal }) => {
    const root = await makeSignalsRepo(phase);
    const running = startRun(root, { SIGNALS_BLOCK_AT: phase === 'verify' ? 'none' : phase });
    // The blocked call's processes: the backend's subprocess, or the sandboxed verification command (by its cwd).
    let blocked: () => Promise<number[]>;
    if (phase === 'verify') {
      const [, worktree] = await running.waitFor(/signals-backend: worktree (\S+)\n/);
      await waitForFile(join(worktree!, '.verify-started'), running);
      blocked = () => processesIn(worktree!);
    } else {
      const [, pid] = await running.waitFor(new RegExp(`signals-backend: blocked in ${phase}, subprocess (\\d+)\\n`));
      blocked = async () => (alive(Number(pid)) ? [Number(pid)] : []);
    }
    expect((await blocked()).length).toBeGreaterThan(0);
    const sentAt = Date.now();
    running.child.kill(signal);

    expect(await running.exited, running.stderr()).toBe(EXIT[signal]);
    // Reported, not asserted: how long settling took on this machine.
    process.stdout.write(`signals: ${signal} during ${phase}: exited ${EXIT[signal]} ${Date.now() - sentAt} ms after the signal\n`);
    expect(await blocked()).toEqual([]);
    const stderr = running.stderr();
    expect(stderr).toContain(`Interrupted (${signal === 'SIGINT' ? 'Ctrl-C' : signal})`);

    // Spend: every reservation settled with what the call counted, none reconciled in full.
    const entries = await journal(root);
    const opened = entries.filter((entry) => entry.kind === 'open');
    const settles = new Map(entries.filter((entry) => entry.kind === 'settle').map((entry) => [entry.id, entry]));
    expect(Object.fromEntries(opened.map((entry) => [entry.phase, settles.get(entry.id)?.tokens]))).toEqual(SETTLED[phase]);
    for (const entry of opened) expect(settles.get(entry.id)!.tokens!).toBeLessThan(entry.reserved!);
    expect(entries.filter((entry) => entry.kind === 'reconcile')).toEqual([]);
    const total = Object.values(SETTLED[phase]).reduce((sum, tokens) => sum + tokens, 0);

    // No lease left behind.
    const leases = existsSync(join(root, '.loop-runtime', 'leases')) ? await readdir(join(root, '.loop-runtime', 'leases'), { recursive: true }) : [];
    expect(leases.filter((name) => String(name).endsWith('.lock'))).toEqual([]);

    // One run-log line for the tick: interrupted, with what was settled.
    const tickId = opened[0]!.tickId;
    const lines = (await runLogLines(root)).filter((line) => line.tick_id === tickId);
    expect(lines).toMatchObject([{ outcome: 'interrupted', kind: 'interrupted', tokens_estimate: total }]);
    const state = await readFile(join(root, 'STATE.md'), 'utf8');
    expect(state).toContain(`interrupted by ${signal === 'SIGINT' ? 'Ctrl-C (SIGINT)' : signal}`);

    // Interrupted, never failed or rejected: no attempt is recorded against the item.
    const ledgerPath = join(root, 'loop-ledger.json');
    const ledger = existsSync(ledgerPath) ? (await readFile(ledgerPath, 'utf8')) : '';
    expect(ledger).not.toContain('"failure"');

    // The half-done change waits in the inbox when there was one.
    const inbox = await cli(root, ['inbox', '--json']);
    const items = (cliJson(inbox.stdout) as { items: Array<{ branch: string; path: string }> }).items;
    if (phase === 'triage') {
      expect(items).toEqual([]);
      expect(stderr).toContain('Left: no worktree.');
    } else {
      const left = /Left: worktree (\S+) on branch (loop\/daily-triage\/\S+) \(unverified\)/.exec(stderr);
      expect(left, stderr).not.toBeNull();
      expect(items).toMatchObject([{ branch: left![2], path: left![1] }]);
      expect(await readFile(join(left![1]!, 'src/example.ts'), 'utf8')).toContain('implemented');
    }

    if (signal === 'SIGTERM') {
      // The next tick reconciles nothing (its triage finds no work), and metrics count what the budget counts.
      const next = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--backend', './signals-backend.mjs', '--allow-unsandboxed'], { SIGNALS_BLOCK_AT: 'noop' });
      expect(next.code, next.stderr).toBe(0);
      expect((await journal(root)).filter((entry) => entry.kind === 'reconcile')).toEqual([]);
      const metrics = await cli(root, ['metrics', 'daily-triage', '--no-audit', '--json']);
      expect(metrics.code, metrics.stderr).toBe(0);
      const budget = (await journal(root)).filter((entry) => entry.kind === 'settle').reduce((sum, entry) => sum + entry.tokens!, 0);
      expect(budget).toBe(total);
      expect((cliJson(metrics.stdout) as { loops: Array<{ tokens: { total: number } }> }).loops[0]!.tokens.total).toBe(budget);
    }
  });
});

describe('a stop signal during run --due', () => {
  it('settles the due loop\'s tick the same way and exits 143 for SIGTERM', async () => {
    const root = await makeSignalsRepo('implement');
    const running = startRun(root, { SIGNALS_BLOCK_AT: 'implement' }, ['--due']);
    const [, pid] = await running.waitFor(/signals-backend: blocked in implement, subprocess (\d+)\n/);
    running.child.kill('SIGTERM');
    expect(await running.exited, running.stderr()).toBe(143);
    expect(alive(Number(pid))).toBe(false);
    expect(running.stderr()).toContain('Interrupted (SIGTERM)');
    const entries = await journal(root);
    expect(entries.filter((entry) => entry.kind === 'settle').map((entry) => entry.tokens)).toEqual([SPENT.triage, SPENT.implementBlocked]);
    expect(entries.filter((entry) => entry.kind === 'reconcile')).toEqual([]);
    expect((await runLogLines(root)).map((line) => line.outcome)).toEqual(['interrupted']);
    expect(existsSync(join(root, '.loop-runtime', 'leases', 'daily-triage.lock'))).toBe(false);
    const items = (cliJson((await cli(root, ['inbox', '--json'])).stdout) as { items: unknown[] }).items;
    expect(items).toHaveLength(1);
  });
});

describe('a stop signal after the commit, during delivery', () => {
  it('lets the verified change be delivered: the tick finishes as proposed, settled, recorded, lease released; exit 143', async () => {
    const root = await makeRepo({
      'src/example.ts': 'export const answer = 42;\n',
      'verify.mjs': VERIFY,
      'verify-mode.txt': 'pass\n',
      'signals-backend.mjs': BACKEND,
      'LOOP.md': '---\nloop-runtime:\n  verify: ["node verify.mjs"]\n  delivery: { mode: push, remote: origin }\n  loops: { daily-triage: {} }\n---\n# Loops\n',
    });
    const remote = await addBareRemote(root);
    // The push waits in the remote's pre-receive hook until the test lets it go: the remote's receive-pack runs its
    // own hooks, while loop-runtime runs none of the repository's (a pre-push hook here would not run).
    const marks = await tempDir('signals-push-');
    await writeFile(join(remote, 'hooks', 'pre-receive'), `#!/bin/sh\ntouch ${marks}/pushing\nwhile [ ! -e ${marks}/release ]; do sleep 0.05; done\nexit 0\n`, { mode: 0o755 });
    const running = startRun(root, { SIGNALS_BLOCK_AT: 'none' });
    await waitForFile(join(marks, 'pushing'), running);
    running.child.kill('SIGTERM');
    await running.waitFor(/SIGTERM: stopping; a second signal exits at once\./);
    await writeFile(join(marks, 'release'), '');

    expect(await running.exited, running.stderr()).toBe(143);
    expect(running.stderr()).toContain('it finished (fix-proposed)');
    const entries = await journal(root);
    expect(entries.filter((entry) => entry.kind === 'settle').map((entry) => entry.tokens)).toEqual([SPENT.triage, SPENT.implement, SPENT.check]);
    expect(entries.filter((entry) => entry.kind === 'reconcile')).toEqual([]);
    expect((await runLogLines(root)).map((line) => line.outcome)).toEqual(['fix-proposed']);
    expect(existsSync(join(root, '.loop-runtime', 'leases', 'daily-triage.lock'))).toBe(false);
    expect(sh(remote, ['branch', '--list', 'loop/daily-triage/*']).trim()).toMatch(/loop\/daily-triage\//);
  });
});

describe('serve', () => {
  it.each(['SIGHUP', 'SIGINT'] as const)('closes the console on %s as on SIGTERM, and exits 0', async (signal) => {
    const root = await makeSignalsRepo('implement');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--cwd', root], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    await new Promise<void>((ready, fail) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (/Token/.test(out)) ready();
      });
      void exited.then((code) => fail(new Error(`serve exited ${code} before it was ready: ${out}`)));
    });
    child.kill(signal);
    expect(await exited).toBe(0);
    expect(out).toContain(`stopped (${signal})`);
  });
});

describe('a second stop signal', () => {
  // Its twin is every case above: one signal alone settles the tick (spend, run log, inbox) before the exit.
  it('exits at once with its own code while the first is still settling', async () => {
    const root = await makeSignalsRepo('implement');
    const running = startRun(root, { SIGNALS_BLOCK_AT: 'implement', SIGNALS_IGNORE_STOP: '1' });
    await running.waitFor(/signals-backend: blocked in implement, not listening\n/);
    running.child.kill('SIGTERM');
    await running.waitFor(/SIGTERM: stopping; a second signal exits at once\./);
    running.child.kill('SIGINT');
    expect(await running.exited).toBe(130);
  });

});
