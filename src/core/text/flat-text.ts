/**
 * A template literal's text built in one piece. V8 joins `${a} on ${b}` longer than 12 characters as a tree of
 * pairs (a "cons string", one object per join), flattened only when something reads it character by character; a
 * string kept for the whole run (a run-log summary, a tick id, a workspace path) keeps that tree alive: on the
 * tick's path about fourteen such objects a tick, copied by every young collection that finds them. `join('')`
 * writes the characters into one string instead. Same text as the literal, byte for byte.
 *
 * @example
 * ```ts
 * flatText`Committed ${sha} on ${branch}.`; // → 'Committed 1a2b3c on loop/x.' (one string, not a tree of joins)
 * ```
 */
export function flatText(strings: TemplateStringsArray, ...values: unknown[]): string {
  const parts: string[] = [strings[0]!];
  for (let index = 0; index < values.length; index++) parts.push(String(values[index]), strings[index + 1]!);
  return parts.join('');
}
