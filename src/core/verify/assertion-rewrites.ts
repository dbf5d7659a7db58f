/**
 * Assertions rewritten rather than removed: the same subject checked more
 * loosely after the change (`toBe(3)` → `toBeTruthy()`, `assertEqual` →
 * `assertTrue`, `assert x == 3` → `assert x`, a wider tolerance), or against
 * a different expected value (`toBe('ok')` → `toBe('<what the bug prints>')`).
 * Pairs each removed assertion with an added one on the same subject in the
 * same file, so unrelated edits elsewhere in the file do not pair up.
 */
import type { IntegrityFinding } from './check-diff-integrity.js';
import type { FilePatch } from './parse-patch.js';
import { parseAssertions, type ParsedAssertion } from './parse-assertions.js';

/** Literals are no subject: `assert x == 3` and `assert y == 3` do not check the same thing. */
const LITERAL = /^(?:-?\d[\d_.e+-]*|(['"`]).*\1|None|True|False|null|undefined|true|false|\[\]|\{\})$/;

function shareSubject(a: ParsedAssertion, b: ParsedAssertion): boolean {
  const subjects = new Set(a.subjects.filter((subject) => !LITERAL.test(subject)));
  return b.subjects.some((subject) => subjects.has(subject));
}

/**
 * Whitespace removed outside string literals only: `['a ', 'b']` and `['a', 'b']` are different expected values
 * (the real-repo test's bug was a trailing space), `[ 'a' ]` and `['a']` are the same.
 */
function squeeze(text: string): string {
  let result = '';
  let quote: string | null = null;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quote) {
      result += char;
      if (char === '\\' && index + 1 < text.length) result += text[++index];
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'" || char === '`') {
      quote = char;
      result += char;
    } else if (!/\s/.test(char)) result += char;
  }
  return result;
}
const same = (a: ParsedAssertion, b: ParsedAssertion) => squeeze(a.text.trim()) === squeeze(b.text.trim());

/** The literal text of an expected value as a program would print it (`'ok'` → `ok`). */
function printed(expected: string): string {
  const quoted = /^(['"`])(.*)\1$/.exec(expected);
  return quoted ? (quoted[2] ?? '') : expected;
}

/** Whether the base's failing output shows `value` as the actual (received) result. */
function printedByBug(value: string, output: string): boolean {
  if (value === '' || output === '') return false;
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const actual = new RegExp(`(?:Received|Actual|actual|got|Got|assert|where)[^\n]*?["'\\s:(]${escaped}(?:["'\\s,)]|$)`, 'm');
  return actual.test(output) || (value.length >= 4 && output.includes(value));
}

/**
 * Findings for one file's rewritten assertions. `baselineOutput` is what the
 * failing verification commands printed at the base: a new expected value
 * found there is the bug's own output, so the rewrite is a rejection rather
 * than an escalation.
 *
 * @example
 * ```ts
 * assertionRewrites({ path: 'a.test.ts', oldPath: 'a.test.ts', binary: false,
 *   removed: ['expect(add(1, 2)).toBe(3);'], added: ['expect(add(1, 2)).toBeTruthy();'] });
 * // → [{ kind: 'assertion-weakened', path: 'a.test.ts', detail: '…', action: 'reject' }]
 * ```
 */
export function assertionRewrites(file: FilePatch, baselineOutput = ''): IntegrityFinding[] {
  const removed = file.removed.flatMap((line) => parseAssertions(file.path, line));
  const added = file.added.flatMap((line) => parseAssertions(file.path, line));
  const findings: IntegrityFinding[] = [];
  const path = file.path;
  for (const before of removed) {
    if (added.some((after) => same(before, after))) continue;
    const candidates = added.filter((after) => shareSubject(before, after) || shareSubject(after, before));
    if (candidates.length === 0) continue;
    const quote = (assertion: ParsedAssertion) => `\`${assertion.text.trim()}\``;
    const weaker = candidates.find((after) => before.strength === 'exact' && after.strength === 'weak');
    if (weaker) {
      findings.push({ kind: 'assertion-weakened', path, detail: `${quote(before)} became ${quote(weaker)}: it no longer checks the value`, action: 'reject' });
      continue;
    }
    const wider = candidates.find((after) => before.strength === 'close' && after.strength === 'close' && (after.tolerance ?? Infinity) > (before.tolerance ?? 0));
    if (wider) {
      findings.push({ kind: 'assertion-weakened', path, detail: `${quote(before)} became ${quote(wider)}: its tolerance was widened`, action: 'reject' });
      continue;
    }
    const loosenedToClose = candidates.find((after) => before.strength === 'exact' && after.strength === 'close');
    if (loosenedToClose) {
      findings.push({ kind: 'assertion-weakened', path, detail: `${quote(before)} became ${quote(loosenedToClose)}: an exact check became an approximate one`, action: 'reject' });
      continue;
    }
    const rewritten = candidates.find((after) => after.strength === before.strength && after.strength !== 'weak' && after.matcher === before.matcher && squeeze(after.expected ?? '') !== squeeze(before.expected ?? ''));
    if (rewritten) {
      const value = printed(rewritten.expected ?? '');
      const fromBug = printedByBug(value, baselineOutput);
      findings.push({
        kind: 'assertion-rewritten',
        path,
        detail: fromBug
          ? `${quote(before)} became ${quote(rewritten)}: the new expected value is what the code printed before the fix`
          : `${quote(before)} became ${quote(rewritten)}: the expected value changed, which a human decides`,
        action: fromBug ? 'reject' : 'escalate',
      });
    }
  }
  return findings;
}

/** An assertion whose every subject is a constant: `assert.ok(true)`, `expect(1).toBe(1)`, `assert True`. */
function checksOnlyConstants(assertion: ParsedAssertion): boolean {
  return assertion.subjects.length > 0 && assertion.subjects.every((subject) => LITERAL.test(subject));
}

/**
 * Assertions added that check nothing but constants, in a file that lost a real check: a test made to pass by
 * asserting `true` in place of the check it had. (A new placeholder test that asserts a constant replaces nothing;
 * the test-edit rule leaves it to a human.)
 *
 * @example
 * ```ts
 * vacuousAssertions({ path: 'test.js', oldPath: 'test.js', binary: false,
 *   removed: ["assert.equal(parse('a'), 'a')"], added: ['assert.ok(true)'] });
 * // → [{ kind: 'assertion-vacuous', path: 'test.js', detail: '…', action: 'reject' }]
 * ```
 */
export function vacuousAssertions(file: FilePatch): IntegrityFinding[] {
  const allAdded = file.added.flatMap((line) => parseAssertions(file.path, line));
  const allRemoved = file.removed.flatMap((line) => parseAssertions(file.path, line));
  const added = allAdded.filter(checksOnlyConstants);
  const removed = allRemoved.filter(checksOnlyConstants);
  const realChecksLost = allRemoved.some((before) => !checksOnlyConstants(before) && !allAdded.some((after) => same(before, after)));
  if (!realChecksLost || added.length <= removed.length) return [];
  const examples = added.slice(0, 3).map((assertion) => `\`${assertion.text.trim()}\``).join(', ');
  return [{ kind: 'assertion-vacuous', path: file.path, detail: `${added.length - removed.length} assertion(s) added that check only constants (${examples}): they cannot fail`, action: 'reject' }];
}
