import type { Clock } from '../core/ports/index.js';

/**
 * A clock that moves only when told to (or by `stepMs` on every read), so
 * tests of budgets, cadences and UTC roll-over need no sleeps.
 *
 * @example
 * ```ts
 * const clock = new FixedClock('2026-11-21T08:00:00Z');
 * clock.advance(24 * 3_600_000); // next day: the budget rolls over
 * ```
 */
export class FixedClock implements Clock {
  private current: number;
  constructor(start: number | string = '2026-01-01T00:00:00Z', private readonly stepMs = 0) {
    this.current = typeof start === 'string' ? Date.parse(start) : start;
    if (Number.isNaN(this.current)) throw new RangeError(`FixedClock: "${String(start)}" is not a date.`);
  }
  now(): number {
    const value = this.current;
    this.current += this.stepMs;
    return value;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(time: number | string): void {
    this.current = typeof time === 'string' ? Date.parse(time) : time;
  }
}
