/** The real clock: the one adapter that reads wall-clock time. The core only ever sees an injected `Clock`. */
import type { Clock } from '../../core/ports/index.js';

export const systemClock: Clock = { now: () => Date.now() };
