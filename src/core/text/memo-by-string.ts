/**
 * A bounded memo for a pure function of one string. Every tick classifies the same few paths again (is it a
 * test, CI, configuration; does the gate's denylist match it) by dozens of regular expressions and globs; the
 * answer for a path never changes, so it is looked up instead. Bounded: past `limit` entries the memo starts
 * over, so a repository with many paths costs what it did before, never more memory.
 *
 * @example
 * ```ts
 * const isTest = memoByString((path: string) => /\.test\.ts$/.test(path));
 * isTest('src/a.test.ts'); // → true (the regex ran); again → true (looked up)
 * ```
 */
export function memoByString<T>(compute: (key: string) => T, limit = 2_048): (key: string) => T {
  let known = new Map<string, T>();
  return (key) => {
    const hit = known.get(key);
    if (hit !== undefined || known.has(key)) return hit as T;
    const value = compute(key);
    if (known.size >= limit) known = new Map();
    known.set(key, value);
    return value;
  };
}
