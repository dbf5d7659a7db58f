/**
 * Schedules for servers: a crontab line and a systemd service + timer pair
 * that wake `loop-runtime run --due` as often as the most frequent loop's
 * short end. Pure text.
 */
import { cronForPeriod } from '../core/schedule/cron.js';

export interface ServerScheduleOptions {
  /** Absolute path of the repository on the server. */
  root: string;
  /** The shortest `minIntervalMs` across the loops. */
  periodMs: number;
  /** The command prefix, e.g. "npx loop-runtime". */
  command: string;
  /** The longest tick timeout, for the service's start timeout. */
  timeoutMs: number;
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * @example
 * ```ts
 * crontabLine({ root: '/srv/app', periodMs: 300_000, command: 'npx loop-runtime', timeoutMs: 1_800_000 });
 * // → "*\/5 * * * * cd /srv/app && CI=true npx loop-runtime run --due >> .loop-runtime/cron.log 2>&1"
 * ```
 */
export function crontabLine(options: ServerScheduleOptions): string {
  const cron = cronForPeriod(options.periodMs, 'loop-runtime');
  return `${cron} cd ${shellQuote(options.root)} && CI=true ${options.command} run --due >> .loop-runtime/cron.log 2>&1`;
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
 * A oneshot service and its timer. Exit codes 2 (halted) and 4 (a tick was
 * already running) count as success: they are expected, not failures.
 *
 * @example
 * ```ts
 * const { service, timer } = systemdUnits({ root: '/srv/app', periodMs: 300_000, command: 'npx loop-runtime', timeoutMs: 1_800_000 });
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
    'SuccessExitStatus=2 4',
    `TimeoutStartSec=${Math.ceil(options.timeoutMs / 1000) + 600}`,
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
