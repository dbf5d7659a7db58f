/** Injected time source. `now()` is epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** Injected id source; ids must be unique within a state directory. */
export interface IdGenerator {
  next(kind: 'tick' | 'item' | 'attempt'): string;
}
