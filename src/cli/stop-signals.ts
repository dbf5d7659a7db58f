/**
 * The one place that turns a stop signal into the abort every interruptible command (`run`, `run --due`, `worker`,
 * `serve`) obeys. SIGINT (Ctrl-C), SIGTERM (systemd, `timeout`, `docker stop`, Kubernetes, a cancelled CI job) and
 * SIGHUP (a closed terminal) take the same path: the first aborts the signal with the signal's name as its reason,
 * so the command settles what it was doing and exits 128 + n (`exitCodeForSignal`); a second one ends the process at
 * once with its own code.
 */
import { exitCodeForSignal, STOP_SIGNALS, type StopSignalName } from '../core/errors.js';

export interface StopListener {
  /** Aborted by the first stop signal; `signal.reason` is its name (`'SIGTERM'`). */
  readonly signal: AbortSignal;
  /** Stops listening (when the command ends). */
  dispose(): void;
}

export interface StopListenerOptions {
  /** Called when the first signal arrives, before the abort (e.g. a line saying the command is settling). */
  onStop?: (name: StopSignalName) => void;
  /** How a second signal ends the process; default `process.exit`. */
  exit?: (code: number) => void;
}

/**
 * Listens for SIGINT, SIGTERM and SIGHUP until disposed.
 *
 * The listeners stay registered until the command ends, not `once`: a library's exit hook (signal-exit, which
 * execa and proper-lockfile bring) re-raises a signal when it sees no listener but its own, and would kill the
 * process in the middle of settling.
 *
 * @example
 * ```ts
 * const stop = listenForStop();
 * await runtime.run('daily-triage', { signal: stop.signal });
 * const code = stop.signal.aborted ? exitCodeForSignal(stop.signal.reason) : 0; // 143 after SIGTERM
 * stop.dispose();
 * ```
 */
export function listenForStop(options: StopListenerOptions = {}): StopListener {
  const controller = new AbortController();
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const listeners = (Object.keys(STOP_SIGNALS) as StopSignalName[]).map((name) => {
    const listener = () => {
      if (controller.signal.aborted) {
        exit(exitCodeForSignal(name));
        return;
      }
      options.onStop?.(name);
      controller.abort(name);
    };
    process.on(name, listener);
    return [name, listener] as const;
  });
  return {
    signal: controller.signal,
    dispose() {
      for (const [name, listener] of listeners) process.removeListener(name, listener);
    },
  };
}

/** Resolves with the name of the stop signal once `signal` is aborted (at once when it already is). */
export function stopped(signal: AbortSignal): Promise<StopSignalName | string> {
  const name = () => (typeof signal.reason === 'string' ? signal.reason : 'abort');
  if (signal.aborted) return Promise.resolve(name());
  return new Promise((done) => signal.addEventListener('abort', () => done(name()), { once: true }));
}
