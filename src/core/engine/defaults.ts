/**
 * Defaults for ports a caller may leave out. This is the one place in the
 * core that reads the wall clock, and only when no clock was injected:
 * tests and replays always inject one.
 */
import type { AttemptLedger, AttemptRecord, Clock, IdGenerator, KillSwitch, PauseStatus } from '../ports/index.js';

// eslint-disable-next-line no-restricted-globals -- the one sanctioned wall clock, used only when no Clock is injected
export const wallClock: Clock = { now: () => Date.now() };

/** Ids from the clock and a counter: deterministic under a fixed clock. */
export class SequentialIds implements IdGenerator {
  private counter = 0;
  constructor(private readonly clock: Clock) {}
  next(kind: 'tick' | 'item' | 'attempt'): string {
    this.counter++;
    return `${kind}-${this.clock.now().toString(36)}-${this.counter.toString(36)}`;
  }
}

/** Never paused. */
export const neverPaused: KillSwitch = {
  async check(): Promise<PauseStatus> {
    return { paused: false };
  },
};

/** Attempt history kept in memory. */
export class MemoryAttemptLedger implements AttemptLedger {
  readonly records: AttemptRecord[];
  constructor(seed: readonly AttemptRecord[] = []) {
    this.records = [...seed];
  }
  async history(): Promise<readonly AttemptRecord[]> {
    return this.records;
  }
  async append(record: AttemptRecord): Promise<void> {
    this.records.push(record);
  }
}
