import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeForSignal } from '../core/errors.js';
import { listenForStop, stopped, type StopListener } from './stop-signals.js';

/** Our listener for `name` (the last one added), called directly: emitting the signal would reach the test runner's too. */
const deliver = (name: NodeJS.Signals) => (process.listeners(name).at(-1) as () => void)();

describe('listenForStop: one path for every stop signal', () => {
  let listener: StopListener | null = null;
  afterEach(() => listener?.dispose());

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s aborts with its name as the reason, and the exit code is %i', async (name, code) => {
    const exits: number[] = [];
    listener = listenForStop({ exit: (exit) => exits.push(exit) });
    expect(listener.signal.aborted).toBe(false);
    deliver(name);
    expect(listener.signal.aborted).toBe(true);
    expect(await stopped(listener.signal)).toBe(name);
    expect(exitCodeForSignal(listener.signal.reason)).toBe(code);
    expect(exits).toEqual([]);
  });

  it('a second signal exits at once with its own code; the first only aborts', () => {
    const exits: number[] = [];
    const stops: string[] = [];
    listener = listenForStop({ exit: (exit) => exits.push(exit), onStop: (name) => stops.push(name) });
    deliver('SIGTERM');
    expect(exits).toEqual([]);
    deliver('SIGINT');
    expect(exits).toEqual([130]);
    expect(stops).toEqual(['SIGTERM']);
  });

  it('stops listening when disposed (and listens to all three until then)', () => {
    const before = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((name) => process.listenerCount(name));
    const stop = listenForStop({ exit: () => undefined });
    expect(['SIGINT', 'SIGTERM', 'SIGHUP'].map((name) => process.listenerCount(name))).toEqual(before.map((count) => count + 1));
    stop.dispose();
    expect(['SIGINT', 'SIGTERM', 'SIGHUP'].map((name) => process.listenerCount(name))).toEqual(before);
  });

  it('maps an abort without a signal name to 130, as Ctrl-C', () => {
    expect(exitCodeForSignal(undefined)).toBe(130);
    expect(exitCodeForSignal('SIGUSR1')).toBe(130);
  });
});
