/** "Did you mean …?" for misspelt keys: the closest known word within a small edit distance. */

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = previous[0] as number;
    previous[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = previous[j] as number;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, (previous[j - 1] as number) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length] as number;
}

/**
 * The known word closest to `word`, or undefined when none is close enough
 * (distance ≤ max(2, a third of the word's length)).
 *
 * @example
 * ```ts
 * closestMatch('cadense', ['cadence', 'risk']); // → 'cadence'
 * ```
 */
export function closestMatch(word: string, known: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { word: candidate, distance };
  }
  return best?.word;
}
