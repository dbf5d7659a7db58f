/**
 * Where two JSON values differ, as key paths (`steps[6].note`,
 * `args[0].plan.gate.denylist[2]`). Pure: used to explain a replay that no
 * longer matches its recording.
 */

/** One place two JSON values differ. `recorded`/`now` are the values there (`undefined` when absent on one side). */
export interface JsonDifference {
  path: string;
  recorded: unknown;
  now: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

const join = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : /^[A-Za-z_$][\w$-]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;

/**
 * Every leaf where `recorded` and `now` differ, depth first, at most `limit`.
 * Arrays are compared index by index (or as one value with `wholeArrays`,
 * which reads better for lists such as a gate's denylist); a missing key is a
 * difference.
 *
 * @example
 * ```ts
 * jsonDifferences({ a: [1, 2], b: 'x' }, { a: [1, 3], b: 'x' });
 * // → [{ path: 'a[1]', recorded: 2, now: 3 }]
 * ```
 */
export function jsonDifferences(recorded: unknown, now: unknown, limit = 50, path = '', options: { wholeArrays?: boolean } = {}): JsonDifference[] {
  const found: JsonDifference[] = [];
  const walk = (left: unknown, right: unknown, at: string): void => {
    if (found.length >= limit) return;
    if (Array.isArray(left) && Array.isArray(right) && !options.wholeArrays) {
      for (let index = 0; index < Math.max(left.length, right.length); index++) walk(left[index], right[index], join(at, index));
      return;
    }
    if (isRecord(left) && isRecord(right)) {
      for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) walk(left[key], right[key], join(at, key));
      return;
    }
    if (left === right || JSON.stringify(left) === JSON.stringify(right)) return;
    found.push({ path: at || '(value)', recorded: left, now: right });
  };
  walk(recorded, now, path);
  return found;
}

/** A short one-line rendering of a JSON value for a report. */
export function shortJson(value: unknown, max = 80): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
