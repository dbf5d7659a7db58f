/**
 * mulberry32: a small seeded generator for tests that draw cases or kill points, so a failure names a reproducible
 * run. Returns numbers in [0, 1).
 *
 * @example
 * ```ts
 * const random = seededRandom(20261127);
 * random(); // → the same number on every run
 * ```
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
