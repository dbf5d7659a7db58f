import type { Clock, IdGenerator } from '../ports/index.js';
import { flatText } from '../text/flat-text.js';

/**
 * Ids from the clock and a counter: unique within one generator, and
 * reproducible under a fixed clock (tests and replays need no regexes).
 *
 * @example
 * ```ts
 * const ids = new SequentialIds(new FixedClock('2026-11-21T08:00:00Z'));
 * ids.next('tick'); // → 'tick-mhuh5q00-1'
 * ```
 */
export class SequentialIds implements IdGenerator {
  private counter = 0;
  constructor(private readonly clock: Clock) {}
  next(kind: 'tick' | 'item' | 'attempt'): string {
    this.counter++;
    // One string, not a tree of joins: a tick's id is kept by every record the tick writes.
    return flatText`${kind}-${this.clock.now().toString(36)}-${this.counter.toString(36)}`;
  }
}
