/**
 * The wall clock, for the composition root. The core never reads time
 * itself: it gets this (or a `FixedClock` in tests) through `EnginePorts.clock`.
 */
import type { Clock } from '../../core/ports/index.js';

/** Epoch milliseconds from the system clock. */
export const systemClock: Clock = { now: () => Date.now() };
