import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../core/errors.js';
import { crontabLine, onCalendarFor, systemdUnits } from './server-schedule.js';

const MINUTE = 60_000;
const scratch = mkdtempSync(join(tmpdir(), 'cron-wrapper-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the crontab line's command (everything after the five time fields) with sh, as cron does, with `fake-loop-runtime` exiting `code`. */
function runCronCommand(code: number): { status: number | null; stdout: string; log: string } {
  const root = mkdtempSync(join(scratch, 'repo %x '));
  const bin = join(root, 'fake-loop-runtime');
  writeFileSync(bin, `#!/bin/sh\necho "ran: $*"\necho "tick detail on stderr" >&2\nexit ${code}\n`);
  chmodSync(bin, 0o755);
  const line = crontabLine({ root, periodMs: 5 * MINUTE, command: './fake-loop-runtime', timeoutMs: 30 * MINUTE });
  const command = line.split(' ').slice(5).join(' ').replace(/\\%/g, '%'); // cron unescapes \% before handing the line to sh
  const result = spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout + result.stderr, log: readFileSync(join(root, '.loop-runtime', 'cron.log'), 'utf8') };
}

describe('crontab line', () => {
  it('always logs; stays silent (no cron mail) and exits 0 for ok, budget/pause halts and held leases', () => {
    for (const code of [ExitCode.ok, ExitCode.halted, ExitCode.leaseHeld]) {
      const run = runCronCommand(code);
      expect(run).toEqual({ status: 0, stdout: '', log: 'ran: run --due\ntick detail on stderr\n' });
    }
  });

  it('prints (so cron mails) and exits non-zero when a tick failed, config broke or a loop could not run', () => {
    for (const code of [ExitCode.tickFailed, ExitCode.configError, ExitCode.needsHuman, 127]) {
      const run = runCronCommand(code);
      expect(run.status).toBe(code);
      expect(run.stdout).toContain(`loop-runtime run --due exited ${code}`);
      expect(run.stdout).toContain('tick detail on stderr');
    }
  });

  it('escapes % for cron and quotes the path', () => {
    const line = crontabLine({ root: '/srv/my 100% app', periodMs: 5 * MINUTE, command: 'npx --no loop-runtime', timeoutMs: 30 * MINUTE });
    expect(line).toMatch(/^\S+ \* \* \* \* cd '\/srv\/my 100\\% app' && /);
    expect(line.replace(/\\%/g, '')).not.toContain('%');
    execFileSync('/bin/sh', ['-n', '-c', line.split(' ').slice(5).join(' ')]);
  });
});

describe('systemd units', () => {
  const options = { root: '/srv/my app', periodMs: 5 * MINUTE, command: 'npx --no loop-runtime', timeoutMs: 30 * MINUTE };

  it('counts only budget/pause halts (2) and held leases (4) as success, so 1, 3 and 5 fail the unit', () => {
    const { service } = systemdUnits(options);
    expect(service).toContain('ExecStart=/usr/bin/env npx --no loop-runtime run --due');
    const success = service.split('\n').filter((line) => line.startsWith('SuccessExitStatus='));
    expect(success).toEqual(['SuccessExitStatus=2 4']);
    expect(success[0]).not.toMatch(/\b[135]\b/);
  });

  it('stops with SIGTERM to loop-runtime alone and gives it time to settle the tick before anything is killed', () => {
    const { service } = systemdUnits(options);
    const lines = service.split('\n');
    expect(lines).toContain('KillSignal=SIGTERM');
    // mixed: SIGTERM to the main process only (it stops its own agent group), SIGKILL to every process left after the timeout.
    expect(lines).toContain('KillMode=mixed');
    const stop = Number(lines.find((line) => line.startsWith('TimeoutStopSec='))?.split('=')[1]);
    expect(stop).toBeGreaterThanOrEqual(60);
  });

  it('prints a persistent timer', () => {
    const { timer } = systemdUnits(options);
    expect(timer).toMatch(/OnCalendar=\*-\*-\* \*:\d\d\/5:00/);
    expect(timer).toContain('Persistent=true');
    expect(onCalendarFor(24 * 60 * MINUTE)).toMatch(/^\*-\*-\* \d\d:\d\d:00$/);
    expect(onCalendarFor(6 * 60 * MINUTE)).toMatch(/^\*-\*-\* \d\d\/6:\d\d:00$/);
  });
});
