/**
 * Schedules for servers: a crontab line and a systemd service + timer pair
 * that wake `loop-runtime run --due` as often as the most frequent loop's
 * short end. Pure text.
 *
 * Both apply the rule `ci summary` applies in GitHub Actions: exit 0, 2
 * (budget, L0, kill switch) and 4 (lease held) are a normal night; 1, 3 and
 * 5 (a loop could not run: backend missing or logged out, no sandbox,
 * circuit open) are failures — a failed unit, or the only runs cron mails.
 */
import { NOTICE_EXIT_CODES } from '../core/errors.js';
import { cronForPeriod } from '../core/schedule/cron.js';

export interface ServerScheduleOptions {
  /** Absolute path of the repository on the server. */
  root: string;
  /** The shortest `minIntervalMs` across the loops. */
  periodMs: number;
  /** The command prefix, e.g. "npx --no loop-runtime". */
  command: string;
  /** The longest tick timeout, for the service's start timeout. */
  timeoutMs: number;
}

/**
 * How long a stopped `run --due` gets to settle before systemd kills what is left: the agent's process group is given
 * a few seconds to exit after its stop, then the spend, the run log, the state file and the lease are written.
 */
export const STOP_SETTLE_SECONDS = 90;

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A crontab line whose command is a small sh wrapper: everything the run
 * prints goes to `.loop-runtime/cron.log`; only a failing exit code prints a
 * line (and the log's tail), so cron mails only then, and the line exits
 * with that code. No `%` (cron turns it into a newline).
 *
 * @example
 * ```ts
 * crontabLine({ root: '/srv/app', periodMs: 300_000, command: 'npx --no loop-runtime', timeoutMs: 1_800_000 });
 * // → "*\/5 * * * * cd /srv/app && mkdir -p .loop-runtime && { CI=true npx --no loop-runtime run --due >> … 2>&1; code=$?; case $code in 0|2|4) ;; *) echo …; exit $code;; esac; }"
 * ```
 */
export function crontabLine(options: ServerScheduleOptions): string {
  const cron = cronForPeriod(options.periodMs, 'loop-runtime');
  const log = '.loop-runtime/cron.log';
  const notices = ['0', ...NOTICE_EXIT_CODES.map(String)].join('|');
  const failure = `echo "loop-runtime run --due exited $code: a loop could not run or its tick failed. Last lines of ${log}:"; tail -n 20 ${log}; exit $code`;
  const command = `cd ${shellQuote(options.root)} && mkdir -p .loop-runtime && { CI=true ${options.command} run --due >> ${log} 2>&1; code=$?; case $code in ${notices}) ;; *) ${failure};; esac; }`;
  return `${cron} ${command.replace(/%/g, '\\%')}`;
}

/** A systemd OnCalendar= expression firing at least every `periodMs` (5 minutes to a day). */
export function onCalendarFor(periodMs: number): string {
  const [minute, hour] = cronForPeriod(periodMs, 'loop-runtime').split(' ') as [string, string];
  const field = (value: string) => {
    if (value === '*') return '*';
    const step = /^(?:\*|(\d+)-\d+)\/(\d+)$/.exec(value);
    if (step) return `${(step[1] ?? '0').padStart(2, '0')}/${step[2]}`;
    return value.padStart(2, '0');
  };
  return `*-*-* ${field(hour)}:${field(minute)}:00`;
}

/**
 * A oneshot service and its timer. Exit codes 2 (halted on purpose: budget,
 * L0, kill switch) and 4 (a tick was already running) count as success; 1, 3
 * and 5 (a loop could not run and needs a human) fail the unit.
 *
 * @example
 * ```ts
 * const { service, timer } = systemdUnits({ root: '/srv/app', periodMs: 300_000, command: 'npx --no loop-runtime', timeoutMs: 1_800_000 });
 * ```
 */
export function systemdUnits(options: ServerScheduleOptions): { service: string; timer: string } {
  const service = [
    '# /etc/systemd/system/loop-runtime.service',
    '[Unit]',
    `Description=loop-runtime: tick the due loops in ${options.root}`,
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=oneshot',
    `WorkingDirectory=${options.root}`,
    'Environment=CI=true',
    '# API keys for the backends (ANTHROPIC_API_KEY=…, OPENAI_API_KEY=…), readable by root only:',
    'EnvironmentFile=-/etc/loop-runtime.env',
    `ExecStart=/usr/bin/env ${options.command} run --due`,
    '# 2 = halted on purpose (budget, L0, kill switch), 4 = another tick held the lease: not failures.',
    '# 1 = a tick failed, 3 = config error, 5 = a loop could not run (backend missing/logged out, no sandbox, circuit open): the unit fails.',
    `SuccessExitStatus=${NOTICE_EXIT_CODES.join(' ')}`,
    `TimeoutStartSec=${Math.ceil(options.timeoutMs / 1000) + 600}`,
    '# A stop (or the start timeout) sends SIGTERM to loop-runtime only, which stops its agent, settles the spend, keeps',
    '# a half-done change in the inbox, records the tick and releases the lease, then exits 143; whatever is left is',
    '# killed after TimeoutStopSec.',
    'KillSignal=SIGTERM',
    'KillMode=mixed',
    `TimeoutStopSec=${STOP_SETTLE_SECONDS}`,
    '',
  ].join('\n');
  const timer = [
    '# /etc/systemd/system/loop-runtime.timer',
    '[Unit]',
    'Description=Wake loop-runtime run --due',
    '',
    '[Timer]',
    `OnCalendar=${onCalendarFor(options.periodMs)}`,
    '# After downtime, one catch-up run (run --due coalesces missed slots into one tick per loop).',
    'Persistent=true',
    'RandomizedDelaySec=30',
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
  return { service, timer };
}
