/**
 * The line-level rules behind `checkDiffIntegrity`: skip markers, assertion
 * tokens, and configuration loosening. Each rule counts occurrences in added
 * and removed lines, so moving a line is not a finding but a net addition
 * (skip markers, suppressions) or net removal (assertions, strict flags) is.
 */
import type { ConfigKind } from './test-conventions.js';

export interface MarkerRule {
  name: string;
  pattern: RegExp;
  /** Which files the marker means something in. */
  applies: (path: string, isTest: boolean) => boolean;
}

const isJs = (path: string) => /\.[cm]?[jt]sx?$/.test(path);
const isPy = (path: string) => path.endsWith('.py');
const isGo = (path: string) => path.endsWith('_test.go');
const isRs = (path: string) => path.endsWith('.rs');
const isJvm = (path: string) => /\.(java|kt|scala|groovy)$/.test(path);
const isRb = (path: string) => path.endsWith('.rb');
const isCs = (path: string) => path.endsWith('.cs');

/** Markers that switch a test off or narrow a run to a few tests. */
export const SKIP_MARKERS: readonly MarkerRule[] = [
  { name: '.skip', pattern: /\b(?:it|test|describe|suite|context|bench)\.skip(?:If)?\b/g, applies: (p) => isJs(p) },
  { name: '.only', pattern: /\b(?:it|test|describe|suite|context)\.only\b/g, applies: (p) => isJs(p) },
  { name: '.todo', pattern: /\b(?:it|test|describe)\.todo\b/g, applies: (p) => isJs(p) },
  { name: 'x/f-prefixed test', pattern: /(?<![\w.$])(?:xit|xtest|xdescribe|xcontext|fit|fdescribe)\s*\(/g, applies: (p, t) => isJs(p) && t },
  { name: '.skip(', pattern: /\.skip\(/g, applies: (p, t) => isJs(p) && t },
  // node:test's options form: test('x', { skip: true }, fn), t.test('x', { todo: 'later' }, fn). `skip: false` runs.
  { name: 'node:test skip/todo/only option', pattern: /[{,]\s*(?:skip|todo|only)\s*:(?!\s*false\b)/g, applies: (p, t) => isJs(p) && t },
  { name: 'pytest skip', pattern: /@pytest\.mark\.skip(?:if)?\b|\bpytest\.skip\(/g, applies: (p) => isPy(p) },
  { name: 'xfail', pattern: /\bxfail\b/g, applies: (p) => isPy(p) || /\.(toml|cfg|ini)$/.test(p) },
  { name: 'unittest skip', pattern: /@unittest\.skip\w*|\bself\.skipTest\(|raise\s+(?:unittest\.)?SkipTest\b/g, applies: (p) => isPy(p) },
  { name: 't.Skip', pattern: /\bt\.Skip(?:f|Now)?\(/g, applies: (p) => isGo(p) },
  { name: '#[ignore]', pattern: /#\[ignore\b/g, applies: (p) => isRs(p) },
  { name: '@Disabled/@Ignore', pattern: /@(?:Disabled|Ignore)\b/g, applies: (p) => isJvm(p) },
  { name: 'rspec skip/pending', pattern: /^\s*(?:skip|pending)\b|\bx(?:it|describe|context|specify)\b/g, applies: (p, t) => isRb(p) && t },
  { name: '[Ignore]/Skip=', pattern: /\[Ignore\b|Skip\s*=\s*"/g, applies: (p, t) => isCs(p) && t },
];

/** Tokens that make a test check something. */
export const ASSERTION_PATTERN =
  /\bexpect\s*\(|\bassert\w*!?\s*[(\s]|\bassert\w*\.|\.should\b|\bshould\s*\(|\brequire\.[A-Z]\w*\(|\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\(|\brefute\w*\b|\bassertThat\b|\bAssert\.\w+\(/g;

/**
 * Assertions that pin a value (`toBe(3)`, `assertEqual`, `assert x == 3`).
 * Swapping one for a weak matcher keeps the assertion count but stops checking.
 */
export const STRONG_MATCHER_PATTERN =
  /\.(?:toBe|toEqual|toStrictEqual|toMatchObject|toMatch|toContain|toContainEqual|toHaveLength|toHaveProperty|toHaveBeenCalledWith|toHaveBeenCalledTimes|toBeCloseTo|toBeGreaterThan|toBeLessThan|toMatchSnapshot|toMatchInlineSnapshot|isEqualTo|equal|eql)\(|\.toThrow\(\s*[^)\s]|\bassert(?:Equals?|In|Is|AlmostEqual|CountEqual|DictEqual|ListEqual|Raises|ArrayEquals|Same)\s*\(|\b(?:assert|require)\.(?:Equal|EqualValues|Exactly|Len|Contains|ErrorIs)\(|\bassert\b[^#\n]*(?:==|!=|<=|>=|\bin\b)/g;

/** Matchers that only check that something exists or is truthy. */
export const WEAK_MATCHER_PATTERN =
  /\.(?:toBeDefined|toBeTruthy|toBeFalsy|toHaveBeenCalled)\(\s*\)|\.not\.(?:toBeNull|toBeUndefined)\(\s*\)|\bexpect\.anything\(\)|\.(?:to|should)\.(?:exist|be\.ok)\b|\bassert(?:IsNotNone|NotNull|True)\s*\(|\b(?:assert|require)\.(?:NotNil|NotEmpty|True)\(|\bassert\b[^#\n=<>]*\bis\s+not\s+None\b/g;

/** Suppressions that turn a checker off for a line or file. Any file. */
export const SUPPRESSION_PATTERN =
  /eslint-disable|@ts-ignore|@ts-nocheck|@ts-expect-error|biome-ignore|#\s*type:\s*ignore|#\s*noqa\b|pylint:\s*disable|\/\/\s*nolint\b|#!?\[allow\(|@SuppressWarnings\b|istanbul ignore|c8 ignore|v8 ignore|pragma:\s*no cover/g;

export function countMatches(lines: readonly string[], pattern: RegExp): number {
  let count = 0;
  for (const line of lines) {
    pattern.lastIndex = 0;
    count += line.match(pattern)?.length ?? 0;
  }
  return count;
}

export interface LooseningRule {
  kinds: readonly (ConfigKind | 'any-js')[];
  /** Added lines matching this loosen the configuration. */
  added?: RegExp;
  /** Removed lines matching this (and not re-added) loosen the configuration. */
  removed?: RegExp;
  detail: string;
}

export const LOOSENING_RULES: readonly LooseningRule[] = [
  {
    kinds: ['eslint'],
    added: /["']?[\w@/-]+["']?\s*:\s*(?:["'](?:off|warn)["']|0\b|1\b|\[\s*(?:["'](?:off|warn)["']|[01]\b))/,
    detail: 'an eslint rule was turned off or down to a warning',
  },
  { kinds: ['eslint'], added: /\b(?:ignores|ignorePatterns)\b/, detail: 'eslint ignore patterns were added' },
  { kinds: ['tsconfig'], added: /"(?:strict\w*|no[A-Z]\w*|alwaysStrict|exactOptionalPropertyTypes|useUnknownInCatchVariables)"\s*:\s*false/, detail: 'a TypeScript strictness flag was set to false' },
  { kinds: ['tsconfig'], removed: /"(?:strict\w*|no[A-Z]\w*|alwaysStrict|exactOptionalPropertyTypes|useUnknownInCatchVariables)"\s*:\s*true/, detail: 'a TypeScript strictness flag was removed' },
  { kinds: ['tsconfig'], added: /"(?:skipLibCheck|allowUnreachableCode|allowUnusedLabels|suppress\w*)"\s*:\s*true/, detail: 'a TypeScript check was suppressed' },
  { kinds: ['test-runner', 'package-json', 'any-js'], added: /passWithNoTests|--pass-with-no-tests/, detail: 'passWithNoTests was enabled' },
  { kinds: ['package-json', 'build'], added: /\|\|\s*(?:true|:|exit 0)\b|;\s*exit 0\b/, detail: 'a command was made to always succeed' },
  { kinds: ['python'], added: /\bstrict\s*=\s*(?:false|False)\b|ignore_errors\s*=\s*(?:true|True)\b|--ignore[= ]|--deselect\b|\bdisable_error_code\b/, detail: 'a Python type or test setting was loosened' },
  { kinds: ['build'], added: /allow\(|-A\s+warnings|\bdisable-all\b/, detail: 'a lint was disabled in build configuration' },
];

/** Coverage thresholds: `branches: 80`, `fail_under = 90`, `--cov-fail-under=85`, `"lines": 80`. */
export const THRESHOLD_PATTERN =
  /["']?(branches|functions|lines|statements|fail_under|fail-under|threshold|minimum_coverage)["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)/gi;
