/**
 * Reads the assertions on diff lines of JavaScript/TypeScript and Python
 * tests: what each checks (its subject), how strictly (an exact value, only
 * presence or truthiness, a value within a tolerance) and against what. Pure
 * and line-based: an assertion split over several lines is read from its
 * first line as far as that line goes.
 */

export type AssertionStrength = 'exact' | 'weak' | 'close';

export interface ParsedAssertion {
  /** What is checked, whitespace removed: `add(1,2)`. Two-sided checks (`assertEqual(a, b)`) list both sides. */
  subjects: string[];
  strength: AssertionStrength;
  /** The matcher or assertion function: `toBe`, `not.toBeNull`, `assertEqual`, `assert ==`. */
  matcher: string;
  /** The expected value's text as written, trimmed (exact and close checks). */
  expected?: string;
  /** How far off a value may be (close checks): bigger is looser. */
  tolerance?: number;
  /** The line as written. */
  text: string;
}

const squeeze = (text: string) => text.replace(/\s+/g, '');

/** Index of the bracket closing the one at `open`, skipping strings; -1 when the line ends first. */
function closing(text: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const stack: string[] = [];
  let quote: string | null = null;
  for (let index = open; index < text.length; index++) {
    const char = text[index]!;
    if (quote) {
      if (char === '\\') index++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'" || char === '`') quote = char;
    else if (pairs[char]) stack.push(pairs[char]!);
    else if (char === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return index;
    }
  }
  return -1;
}

/** Splits at top-level commas (not inside brackets or strings). */
function splitArguments(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quote) {
      if (char === '\\') index++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'" || char === '`') quote = char;
    else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth--;
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

const JS_EXACT = new Set(['toBe', 'toEqual', 'toStrictEqual', 'toMatchObject', 'toMatch', 'toContain', 'toContainEqual', 'toHaveLength', 'toHaveProperty', 'toHaveBeenCalledWith', 'toHaveBeenCalledTimes', 'toThrow', 'toMatchInlineSnapshot', 'toBeNull', 'toBeUndefined', 'toBeNaN', 'toBeGreaterThan', 'toBeGreaterThanOrEqual', 'toBeLessThan', 'toBeLessThanOrEqual', 'equal', 'eql', 'deep.equal']);
const JS_WEAK = new Set(['toBeTruthy', 'toBeDefined', 'toBeFalsy', 'not.toBeNull', 'not.toBeUndefined', 'toHaveBeenCalled', 'toBeInstanceOf', 'not.toBeNaN', 'to.exist', 'to.be.ok']);

function jsAssertions(line: string): ParsedAssertion[] {
  const found: ParsedAssertion[] = [];
  for (const match of line.matchAll(/\bexpect\s*\(/g)) {
    const open = (match.index ?? 0) + match[0].length - 1;
    const end = closing(line, open);
    if (end < 0) continue;
    const subject = squeeze(line.slice(open + 1, end));
    const chain = /^\s*\.((?:not\.|resolves\.|rejects\.|to\.|be\.|deep\.)*)(\w+)\s*(\()?/.exec(line.slice(end + 1));
    if (!chain) continue;
    const prefix = (chain[1] ?? '').replace(/(?:resolves|rejects)\./g, '');
    const matcher = `${prefix}${chain[2]}`;
    let args: string[] = [];
    if (chain[3]) {
      const argsOpen = end + 1 + chain[0].length - 1;
      const argsEnd = closing(line, argsOpen);
      args = argsEnd < 0 ? [] : splitArguments(line.slice(argsOpen + 1, argsEnd));
    }
    if (matcher === 'toBeCloseTo') {
      const digits = args[1] === undefined ? 2 : Number(args[1]);
      found.push({ subjects: [subject], strength: 'close', matcher, expected: (args[0] ?? '').trim(), tolerance: Number.isFinite(digits) ? 10 ** -digits / 2 : Infinity, text: line });
    } else if (JS_WEAK.has(matcher) || (matcher === 'toThrow' && args.length === 0) || (matcher === 'toHaveBeenCalled' && args.length === 0)) {
      found.push({ subjects: [subject], strength: 'weak', matcher, text: line });
    } else if (JS_EXACT.has(matcher.replace(/^not\./, '')) && !matcher.startsWith('not.')) {
      found.push({ subjects: [subject], strength: 'exact', matcher, expected: args.join(', '), text: line });
    }
  }
  // node:assert and chai's assert: assert.strictEqual(actual, expected), assert.ok(value), assert(value).
  const nodeAssert = /\bassert(?:\.(strictEqual|equal|deepStrictEqual|deepEqual|ok|isOk|isTrue|exists|isDefined|isNotNull))?\s*\(/.exec(line);
  if (nodeAssert && !/\bexpect\s*\(/.test(line)) {
    const open = nodeAssert.index + nodeAssert[0].length - 1;
    const end = closing(line, open);
    const args = end < 0 ? [] : splitArguments(line.slice(open + 1, end));
    const name = nodeAssert[1] ?? 'assert';
    if (args[0] !== undefined) {
      if (/^(strictEqual|equal|deepStrictEqual|deepEqual)$/.test(name) && args[1] !== undefined) {
        found.push({ subjects: [squeeze(args[0]), squeeze(args[1])], strength: 'exact', matcher: `assert.${name}`, expected: args[1].trim(), text: line });
      } else if (!/[=!<>]=|[<>]/.test(args[0])) {
        found.push({ subjects: [squeeze(args[0])], strength: 'weak', matcher: `assert.${name}`, text: line });
      }
    }
  }
  return found;
}

const PY_EXACT_CALLS = /\b(?:self\.)?(assertEqual|assertEquals|assertListEqual|assertDictEqual|assertTupleEqual|assertSetEqual|assertSequenceEqual|assertCountEqual|assertIs|assertIn|assertMultiLineEqual)\s*\(/;
const PY_WEAK_CALLS = /\b(?:self\.)?(assertTrue|assertIsNotNone|assert_)\s*\(/;
const PY_CLOSE_CALLS = /\b(?:self\.)?(assertAlmostEqual|assertAlmostEquals)\s*\(/;

function keywordNumber(args: readonly string[], name: string): number | undefined {
  const entry = args.find((arg) => new RegExp(`^${name}\\s*=`).test(arg));
  if (!entry) return undefined;
  const value = Number(entry.split('=')[1]);
  return Number.isFinite(value) ? value : undefined;
}

function pyCall(line: string, pattern: RegExp): { name: string; args: string[] } | null {
  const match = pattern.exec(line);
  if (!match) return null;
  const open = match.index + match[0].length - 1;
  const end = closing(line, open);
  return { name: match[1] ?? '', args: end < 0 ? [] : splitArguments(line.slice(open + 1, end)) };
}

/** pytest.approx(v, rel=…, abs=…): its looser tolerance (default rel 1e-6). */
function approxTolerance(text: string): { expected: string; tolerance: number } | null {
  const match = /\b(?:pytest\.)?approx\s*\(/.exec(text);
  if (!match) return null;
  const open = match.index + match[0].length - 1;
  const end = closing(text, open);
  const args = end < 0 ? [] : splitArguments(text.slice(open + 1, end));
  const positional = args.filter((arg) => !/^\w+\s*=/.test(arg));
  const rel = keywordNumber(args, 'rel') ?? (positional[1] !== undefined ? Number(positional[1]) : undefined);
  const abs = keywordNumber(args, 'abs') ?? (positional[2] !== undefined ? Number(positional[2]) : undefined);
  return { expected: (positional[0] ?? '').trim(), tolerance: Math.max(rel ?? (abs === undefined ? 1e-6 : 0), abs ?? 0) };
}

function pythonAssertions(line: string): ParsedAssertion[] {
  const exact = pyCall(line, PY_EXACT_CALLS);
  if (exact && exact.args.length >= 2) {
    return [{ subjects: exact.args.slice(0, 2).map(squeeze), strength: 'exact', matcher: exact.name, expected: exact.args[1]!.trim(), text: line }];
  }
  const weak = pyCall(line, PY_WEAK_CALLS);
  if (weak && weak.args[0] !== undefined) return [{ subjects: [squeeze(weak.args[0])], strength: 'weak', matcher: weak.name, text: line }];
  const close = pyCall(line, PY_CLOSE_CALLS);
  if (close && close.args.length >= 2) {
    const places = keywordNumber(close.args, 'places') ?? (close.args[2] !== undefined && !/=/.test(close.args[2]) ? Number(close.args[2]) : undefined);
    const delta = keywordNumber(close.args, 'delta');
    const tolerance = delta ?? 10 ** -(places ?? 7) / 2;
    return [{ subjects: close.args.slice(0, 2).map(squeeze), strength: 'close', matcher: close.name, expected: close.args[1]!.trim(), tolerance, text: line }];
  }
  const statement = /^\s*assert\s+(.+?)(?:\s*,\s*["'f].*)?\s*(?:#.*)?$/.exec(line);
  if (!statement) return [];
  const body = statement[1]!;
  const comparison = /^(.+?)\s*(==|!=|<=|>=|<|>|\bnot in\b|\bin\b|\bis not\b|\bis\b)\s*(.+)$/.exec(body);
  if (!comparison) return [{ subjects: [squeeze(body)], strength: 'weak', matcher: 'assert', text: line }];
  const [, left = '', operator = '', right = ''] = comparison;
  if (operator === 'is not' && /^None$/.test(right.trim())) return [{ subjects: [squeeze(left)], strength: 'weak', matcher: 'assert is not None', text: line }];
  const approx = approxTolerance(right) ?? approxTolerance(left);
  if (approx && operator === '==') {
    const subject = /approx/.test(right) ? left : right;
    return [{ subjects: [squeeze(subject)], strength: 'close', matcher: 'approx', expected: approx.expected, tolerance: approx.tolerance, text: line }];
  }
  return [{ subjects: [squeeze(left), squeeze(right)], strength: 'exact', matcher: `assert ${operator}`, expected: right.trim(), text: line }];
}

/**
 * The assertions on one line of a test file, by language (from the path).
 *
 * @example
 * ```ts
 * parseAssertions('a.test.ts', '  expect(add(1, 2)).toBe(3);');
 * // → [{ subjects: ['add(1,2)'], strength: 'exact', matcher: 'toBe', expected: '3', … }]
 * parseAssertions('test_a.py', '    assert add(1, 2)');
 * // → [{ subjects: ['add(1,2)'], strength: 'weak', matcher: 'assert', … }]
 * ```
 */
export function parseAssertions(path: string, line: string): ParsedAssertion[] {
  if (/\.[cm]?[jt]sx?$/.test(path)) return jsAssertions(line);
  if (path.endsWith('.py')) return pythonAssertions(line);
  return [];
}
