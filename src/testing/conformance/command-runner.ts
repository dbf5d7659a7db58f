/**
 * The CommandRunner contract as a test suite, with real processes: exit codes
 * and output as data, timeouts that kill the whole process group (even one
 * that ignores SIGTERM), a capped output tail, a scrubbed and redacted
 * environment, the working directory honoured, and an abort that returns
 * evidence instead of throwing. A runner that confines files additionally
 * cannot read credentials under `home` or write outside its roots.
 *
 * @example
 * ```ts
 * describeCommandRunnerConformance('ProcessRunner', { create: (setup) => createProcessRunner(setup) });
 * ```
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock, CommandEvidence, CommandRunner, CommandRunOptions } from '../../core/ports/index.js';
import { FixedClock } from '../fixed-clock.js';

export interface CommandRunnerSetup {
  clock: Clock;
  /** The host environment the runner scrubs, and takes secret values from. */
  env: Record<string, string | undefined>;
  /** A home directory; a confining runner hides the credentials under it. */
  home: string;
  /** Grace between SIGTERM and SIGKILL on timeout. */
  killGraceMs: number;
}

export interface CommandRunnerConformanceOptions {
  create(setup: CommandRunnerSetup): CommandRunner | Promise<CommandRunner>;
  /** The runner confines files (bwrap, Seatbelt): run the confinement cases too. */
  confinesFiles: boolean;
  /** Skips the suite, with this reason shown as a skipped test (e.g. "bwrap is not installed"). */
  skip?: string;
}

const CLOCK_START = Date.UTC(2001, 0, 1);
const HOST_SECRET = 'host-secret-value-7d1f0c2a';
const EXTRA_SECRET = 'extra-secret-value-3e9b44c1';
const KEY_CANARY = 'PRIVATE-KEY-CANARY-conformance';

/** Processes (any namespace) whose command line holds `marker`; empty where /proc is missing. */
function processesWith(marker: string): string[] {
  if (!existsSync('/proc')) return [];
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\u0000', ' ');
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (commandLine.includes(marker) && !/^State:\s+Z/m.test(status)) found.push(`${entry}: ${commandLine}`);
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/** Waits (bounded) until no live process carries `marker`: a SIGKILL is delivered, not instant. */
async function expectNoProcessWith(marker: string): Promise<void> {
  for (let attempt = 0; attempt < 250 && processesWith(marker).length > 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(processesWith(marker)).toEqual([]);
}

/** Polls while `running` is pending: did a live process with `marker` show up? (Proves a kill check is not vacuous.) */
async function sawProcessWith(marker: string, running: Promise<unknown>): Promise<boolean> {
  if (!existsSync('/proc')) return true;
  let settled = false;
  void running.finally(() => (settled = true)).catch(() => undefined);
  while (!settled) {
    if (processesWith(marker).length > 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return processesWith(marker).length > 0;
}

let markerCounter = 0;
/** A unique `sleep` duration, so the test can find exactly its own processes in /proc. */
function uniqueSleep(): string {
  markerCounter += 1;
  return `9${String(process.pid % 100_000).padStart(5, '0')}.${String(markerCounter).padStart(4, '0')}`;
}

export function describeCommandRunnerConformance(name: string, options: CommandRunnerConformanceOptions): void {
  if (options.skip) {
    describe(`CommandRunner conformance: ${name}`, () => {
      it.skip(`SKIPPED: ${options.skip}`, () => {});
    });
    return;
  }
  describe(`CommandRunner conformance: ${name}`, () => {
    let base: string;
    let cwd: string;
    let home: string;
    let outside: string;
    let clock: FixedClock;
    let runner: CommandRunner;

    beforeEach(async () => {
      base = await realpath(await mkdtemp(join(tmpdir(), 'runner-conformance-')));
      cwd = join(base, 'workspace');
      home = join(base, 'home');
      outside = join(base, 'outside');
      for (const directory of [cwd, join(home, '.ssh'), outside]) await mkdir(directory, { recursive: true });
      await writeFile(join(home, '.ssh', 'id_ed25519'), `${KEY_CANARY}\n`);
      await writeFile(join(cwd, 'inside.txt'), 'inside the workspace\n');
      clock = new FixedClock(CLOCK_START, 1_000);
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, SERVICE_API_KEY: HOST_SECRET, UNLISTED_VARIABLE: 'should-not-pass' };
      runner = await options.create({ clock, env, home, killGraceMs: 100 });
    });
    afterEach(async () => {
      await rm(base, { recursive: true, force: true });
    });

    const run = (command: string, extra: Partial<CommandRunOptions> = {}): Promise<CommandEvidence> =>
      runner.run({ command, timeoutMs: 60_000 }, { cwd, timeoutMs: 60_000, ...extra });

    it('declares command-runner-v1 and names its isolation', () => {
      expect(runner.specificationVersion).toBe('command-runner-v1');
      expect(runner.isolation).toMatch(/\S/);
      if (options.confinesFiles) expect(runner.isolation).not.toBe('none');
    });

    it('returns exit code and combined output as data, timed by the injected clock', async () => {
      const failed = await run('echo to-stdout; echo to-stderr >&2; exit 3');
      expect(failed).toMatchObject({ command: 'echo to-stdout; echo to-stderr >&2; exit 3', exitCode: 3, signal: null, timedOut: false });
      expect(failed.output).toContain('to-stdout');
      expect(failed.output).toContain('to-stderr');
      expect(failed.finishedAt).toBeGreaterThan(CLOCK_START);
      expect(failed.finishedAt).toBeLessThan(CLOCK_START + 60_000);
      expect(failed.durationMs).toBeGreaterThanOrEqual(0);
      expect((await run('true')).exitCode).toBe(0);
    });

    it('runs in cwd, where the command may write', async () => {
      const evidence = await run('pwd -P; echo made > made-here.txt');
      expect(evidence.exitCode).toBe(0);
      expect(evidence.output.trim()).toBe(cwd);
      expect(await readFile(join(cwd, 'made-here.txt'), 'utf8')).toBe('made\n');
    });

    it('kills the whole process group on timeout, even when it ignores SIGTERM', async () => {
      const marker = uniqueSleep();
      const running = runner.run(
        { command: `trap '' TERM; sleep ${marker} & sleep ${marker}; echo never-printed`, timeoutMs: 1_000 },
        { cwd, timeoutMs: 60_000 },
      );
      expect(await sawProcessWith(`sleep ${marker}`, running)).toBe(true);
      const evidence = await running;
      expect(evidence.timedOut).toBe(true);
      expect(evidence.exitCode).not.toBe(0);
      expect(evidence.output).not.toContain('never-printed');
      await expectNoProcessWith(`sleep ${marker}`);
    });

    it('leaves no background process behind when the command exits on its own', async () => {
      const marker = uniqueSleep();
      const evidence = await run(`sleep ${marker} >/dev/null 2>&1 & echo started`);
      expect(evidence).toMatchObject({ exitCode: 0, timedOut: false });
      await expectNoProcessWith(`sleep ${marker}`);
    });

    it('keeps only the tail of a large output, under the cap, and says it cut', async () => {
      const evidence = await run('seq 1 40000; echo THE-END', { outputLimitBytes: 1_000 });
      expect(evidence.exitCode).toBe(0);
      expect(evidence.output.trimEnd().endsWith('THE-END')).toBe(true);
      expect(evidence.output).toMatch(/truncated/);
      expect(evidence.output).not.toMatch(/^1\n2\n/);
      expect(Buffer.byteLength(evidence.output)).toBeLessThan(1_000 + 200);
    });

    it('scrubs the host environment and redacts secret values from output and the command line', async () => {
      const evidence = await run(`echo "[$UNLISTED_VARIABLE][$SERVICE_API_KEY]"; echo "$DEPLOY_TOKEN"; echo ${HOST_SECRET}`, { env: { DEPLOY_TOKEN: EXTRA_SECRET } });
      expect(evidence.exitCode).toBe(0);
      expect(evidence.output).toContain('[][]');
      for (const secret of [HOST_SECRET, EXTRA_SECRET]) {
        expect(evidence.output).not.toContain(secret);
        expect(evidence.command).not.toContain(secret);
      }
      // The twin: an allowlisted variable does pass.
      expect((await run('command -v sh >/dev/null && echo path-works')).output).toContain('path-works');
    });

    it('an abort returns evidence instead of throwing, and kills the command', async () => {
      const controller = new AbortController();
      controller.abort();
      const marker = uniqueSleep();
      const evidence = await run(`sleep ${marker}; echo never-printed`, { signal: controller.signal });
      expect(evidence.exitCode).not.toBe(0);
      expect(evidence.output).not.toContain('never-printed');
      await expectNoProcessWith(`sleep ${marker}`);
      // Stopped before it starts, nothing starts: a sandbox killed in its first milliseconds could outlive the kill.
      await run('echo started > started.txt', { signal: controller.signal });
      expect(existsSync(join(cwd, 'started.txt'))).toBe(false);
      // The twin: not stopped, the same command runs.
      await run('echo started > started.txt');
      expect(existsSync(join(cwd, 'started.txt'))).toBe(true);
    });

    it('gives a command that asks for one a report directory outside cwd, returns its files and removes it; without asking, none', async () => {
      if (!runner.collectsReports) {
        // A runner without the capability runs the command as written and returns no report files.
        expect((await run('echo plain', { reportDir: true })).reports ?? []).toEqual([]);
        return;
      }
      const evidence = await run('echo "$LOOP_RUNTIME_REPORT_DIR" > where.txt; printf \'<testsuites/>\' > "$LOOP_RUNTIME_REPORT_DIR/junit.xml"; ln -s /etc/hostname "$LOOP_RUNTIME_REPORT_DIR/link"', { reportDir: true });
      expect(evidence.exitCode).toBe(0);
      expect(evidence.reports).toEqual([{ name: 'junit.xml', text: '<testsuites/>', truncated: false }]);
      const directory = (await readFile(join(cwd, 'where.txt'), 'utf8')).trim();
      expect(directory).toMatch(/^\//);
      expect(directory.startsWith(`${cwd}/`)).toBe(false);
      expect(existsSync(directory)).toBe(false);
      // The twin: not asked, the variable is unset and nothing comes back.
      const plain = await run('echo "[$LOOP_RUNTIME_REPORT_DIR]"');
      expect(plain.output).toContain('[]');
      expect(plain.reports).toBeUndefined();
    });

    if (options.confinesFiles) {
      it('cannot read credentials under home, while files in the workspace stay readable', async () => {
        const secret = await run(`cat "${join(home, '.ssh', 'id_ed25519')}"`);
        expect(secret.exitCode).not.toBe(0);
        expect(secret.output).not.toContain(KEY_CANARY);
        expect((await run('cat inside.txt')).output).toContain('inside the workspace');
      });

      it('cannot write outside its writable roots, and can when the directory is one', async () => {
        const escaped = await run(`echo escaped > "${join(outside, 'escaped.txt')}"`);
        expect(escaped.exitCode).not.toBe(0);
        expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
        const allowed = await run(`echo allowed > "${join(outside, 'allowed.txt')}"`, { writableRoots: [outside] });
        expect(allowed.exitCode).toBe(0);
        expect(await readFile(join(outside, 'allowed.txt'), 'utf8')).toBe('allowed\n');
      });
    } else {
      it('is honest about isolation "none": it can read what a sandbox would hide', async () => {
        expect(runner.isolation).toBe('none');
        expect((await run(`cat "${join(home, '.ssh', 'id_ed25519')}"`)).output).toContain(KEY_CANARY);
      });
    }
  });
}
