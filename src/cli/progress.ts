/**
 * Progress for long work on stderr. On a terminal one line redrawn in place
 * with the running phase's elapsed time (`verifying: npm test (8 s)`); in CI
 * plain timestamped lines; with --json, or stderr piped outside CI, nothing.
 * Time comes from an injected clock, so what is drawn is testable.
 */
export type ProgressMode = 'off' | 'lines' | 'live';

export interface ProgressClock {
  now(): number;
}

/**
 * @example
 * ```ts
 * progressMode({ json: false, ci: false, stderrIsTTY: true }); // → 'live'
 * ```
 */
export function progressMode(options: { json: boolean; ci: boolean; stderrIsTTY: boolean }): ProgressMode {
  if (options.json) return 'off';
  if (options.ci) return 'lines';
  return options.stderrIsTTY ? 'live' : 'off';
}

/** `CI` set to anything but "", "0" or "false" means a CI runner. */
export function isCi(env: Record<string, string | undefined>): boolean {
  const value = env['CI']?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

export interface ProgressOptions {
  mode: ProgressMode;
  clock: ProgressClock;
  write: (text: string) => void;
  /** Columns a live line may use. Default 100. */
  width?: number;
  /** Starts the redraw timer; returns its stop. Default: every second, never keeping the process alive. */
  every?: (redraw: () => void) => () => void;
}

export interface Progress {
  /** The current status (a phase that starts, a step's note); an empty line clears it. */
  report(line: string): void;
  /** Redraws the live line with its elapsed time now (the timer calls this). */
  refresh(): void;
  /** Clears the live line and stops the timer. */
  stop(): void;
}

/** `8 s`, `2 min 05 s`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

const everySecond = (redraw: () => void): (() => void) => {
  const timer = setInterval(redraw, 1000);
  timer.unref();
  return () => clearInterval(timer);
};

/**
 * @example
 * ```ts
 * const progress = createProgress({ mode: 'live', clock, write: (text) => process.stderr.write(text) });
 * progress.report('verifying: npm test'); // later, after 8 s: "\r\x1b[Kverifying: npm test (8 s)"
 * progress.stop();
 * ```
 */
export function createProgress(options: ProgressOptions): Progress {
  const width = options.width ?? 100;
  if (options.mode === 'off') return { report: () => {}, refresh: () => {}, stop: () => {} };
  if (options.mode === 'lines') {
    return {
      report: (line) => {
        if (line.trim()) options.write(`${new Date(options.clock.now()).toISOString()} ${line.trim()}\n`);
      },
      refresh: () => {},
      stop: () => {},
    };
  }
  let status = '';
  let since = 0;
  let stopTimer: (() => void) | null = null;
  const draw = () => {
    if (!status) return;
    const elapsed = options.clock.now() - since;
    const suffix = elapsed >= 1000 ? ` (${formatElapsed(elapsed)})` : '';
    options.write(`\r\x1b[K${status.slice(0, Math.max(10, width - suffix.length))}${suffix}`);
  };
  const clear = () => {
    if (status) options.write('\r\x1b[K');
    status = '';
    stopTimer?.();
    stopTimer = null;
  };
  return {
    report: (line) => {
      if (!line.trim()) return clear();
      status = line.trim();
      since = options.clock.now();
      draw();
      stopTimer ??= (options.every ?? everySecond)(draw);
    },
    refresh: draw,
    stop: clear,
  };
}
