/**
 * proper-lockfile, loaded on the first lock instead of at start-up: it brings graceful-fs (which patches `fs`
 * when it loads) and signal-exit, ~5 ms that commands which only read (`status`, `validate`) never need.
 *
 * Loading it late must not change how a signal ends the process. signal-exit installs a listener per signal
 * when proper-lockfile loads, and that listener re-raises the signal when it sees only signal-exit's own
 * listeners left. Loaded at start-up it came before every listener of ours; loaded after `serve` registered its
 * `process.once('SIGTERM')`, it would run after that listener had removed itself, re-raise SIGTERM and kill the
 * console mid-shutdown. So the listeners it adds are moved to the front: the order is the one an eager load gave.
 */
import type lockfileModule from 'proper-lockfile';

let loading: Promise<typeof lockfileModule> | null = null;

const signals = (): NodeJS.Signals[] => process.eventNames().filter((event): event is NodeJS.Signals => typeof event === 'string' && event.startsWith('SIG'));

/** Signal listeners added while `load` runs move ahead of the ones registered before. */
async function keepingListenersFirst<T>(load: () => Promise<T>): Promise<T> {
  const before = new Map(signals().map((event) => [event, process.listeners(event)] as const));
  const loaded = await load();
  for (const event of signals()) {
    const earlier = before.get(event) ?? [];
    if (earlier.length === 0) continue;
    const added = process.listeners(event).filter((listener) => !earlier.includes(listener));
    for (const listener of added.reverse()) {
      process.removeListener(event, listener);
      process.prependListener(event, listener);
    }
  }
  return loaded;
}

/**
 * The proper-lockfile module (one load per process).
 *
 * @example
 * ```ts
 * const lockfile = await loadLockLibrary();
 * const release = await lockfile.lock('/repo/.loop-runtime/spend.jsonl', { realpath: false });
 * ```
 */
export function loadLockLibrary(): Promise<typeof lockfileModule> {
  return (loading ??= keepingListenersFirst(async () => (await import('proper-lockfile')).default));
}
