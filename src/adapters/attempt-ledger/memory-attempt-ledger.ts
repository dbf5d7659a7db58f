import type { AttemptLedger, AttemptRecord } from '../../core/ports/index.js';

/**
 * Attempt history kept in memory: the twin of `FileAttemptLedger`, held to
 * the same conformance suite. Records are copied in and out, so a caller
 * mutating a record it appended (or read) cannot rewrite history.
 *
 * @example
 * ```ts
 * const attempts = new MemoryAttemptLedger();
 * await attempts.append({ patternId: 'ci-sweeper', itemKey: 'ci:build', tickId: 't1', at: 0, outcome: 'failure', error: 'red', tokensUsed: 900 });
 * (await attempts.history()).length; // → 1
 * ```
 */
export class MemoryAttemptLedger implements AttemptLedger {
  readonly specificationVersion = 'attempt-ledger-v2' as const;
  /** Frozen copies, append-only: what a caller holds cannot change history. */
  private readonly stored: Readonly<AttemptRecord>[];
  /** The view `history()` last returned; a new one after an append (O(1): a view, never a copy of every record). */
  private snapshot: readonly AttemptRecord[] | null = null;

  constructor(seed: readonly AttemptRecord[] = []) {
    this.stored = seed.map(frozenCopy);
  }

  /** A copy of every record, oldest first. */
  get records(): readonly AttemptRecord[] {
    return this.stored.map((record) => ({ ...record }));
  }

  async history(): Promise<readonly AttemptRecord[]> {
    // The engine reads the history once per tick, right after the previous tick appended: copying every record
    // here made a long run quadratic. The view sees the records that existed when it was taken, and refuses writes.
    this.snapshot ??= prefixView(this.stored, this.stored.length);
    return this.snapshot;
  }

  async append(record: AttemptRecord): Promise<void> {
    this.stored.push(frozenCopy(record));
    this.snapshot = null;
  }
}

/**
 * Not `Object.freeze({ ...record })`: on Node 20's V8 a frozen spread copy of a record with a non-small number (`at`)
 * gets a hidden class of its own, so a long run kept one class per record and every read of the history went
 * megamorphic. `Object.assign` onto a fresh object copies the same own enumerable keys and shares one class.
 */
function frozenCopy(record: AttemptRecord): Readonly<AttemptRecord> {
  return Object.freeze(Object.assign({}, record));
}

/** Is `key` an array index at or past `length` (a record appended after the view was taken)? */
function beyond(key: string | symbol, length: number): boolean {
  if (typeof key !== 'string') return false;
  // Asked on every index the engine reads: a canonical index (digits, no leading zero) read in place, no regex.
  if (key.length === 0 || (key.length > 1 && key.charCodeAt(0) === 48)) return false;
  let value = 0;
  for (let position = 0; position < key.length; position++) {
    const digit = key.charCodeAt(position) - 48;
    if (digit < 0 || digit > 9) return false;
    value = value * 10 + digit;
  }
  return value >= length;
}

/**
 * The first `length` items of an append-only array as a read-only array: it
 * behaves like a frozen copy taken now (later appends stay invisible; every
 * write throws in strict mode) without copying. `items` must only ever grow.
 */
export function prefixView<T>(items: T[], length: number): readonly T[] {
  return new Proxy(items, new PrefixHandler<T>(length));
}

/** The traps of a prefix view, on a prototype: one object per view rather than ten closures (a view is taken every tick). */
class PrefixHandler<T> implements ProxyHandler<T[]> {
  constructor(private readonly length: number) {}

  get(target: T[], key: string | symbol, receiver: unknown): unknown {
    return key === 'length' ? this.length : beyond(key, this.length) ? undefined : Reflect.get(target, key, receiver);
  }

  has(target: T[], key: string | symbol): boolean {
    return !beyond(key, this.length) && Reflect.has(target, key);
  }

  ownKeys(target: T[]): ArrayLike<string | symbol> {
    return Reflect.ownKeys(target).filter((key) => !beyond(key, this.length));
  }

  getOwnPropertyDescriptor(target: T[], key: string | symbol): PropertyDescriptor | undefined {
    if (beyond(key, this.length)) return undefined;
    const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
    if (!descriptor) return undefined;
    return key === 'length' ? { ...descriptor, value: this.length } : { ...descriptor, writable: false };
  }

  set(): boolean {
    return false;
  }

  defineProperty(): boolean {
    return false;
  }

  deleteProperty(): boolean {
    return false;
  }

  setPrototypeOf(): boolean {
    return false;
  }

  preventExtensions(): boolean {
    return false;
  }
}
