import { describe, expect, it } from 'vitest';
import type { ChangeSet } from '../ports/index.js';
import { checkDiffIntegrity, type IntegrityKind } from './check-diff-integrity.js';
import { parseAssertions } from './parse-assertions.js';

function modified(path: string, removed: string[], added: string[]): ChangeSet {
  const patch = [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`, `@@ -1,${removed.length} +1,${added.length} @@`, ...removed.map((line) => `-${line}`), ...added.map((line) => `+${line}`), ''].join('\n');
  return { files: [{ path, status: 'modified', binary: false }], patch };
}

const findings = (changes: ChangeSet, baselineOutput?: string): Array<[IntegrityKind, string]> =>
  checkDiffIntegrity(changes, { protectedPaths: [], ...(baselineOutput ? { baselineOutput } : {}) }).map((finding) => [finding.kind, finding.action]);

const REWRITES: Array<{ name: string; changes: ChangeSet; expected: [IntegrityKind, 'reject' | 'escalate']; baselineOutput?: string }> = [
  { name: 'toBe(x) → toBe(y)', changes: modified('src/a.test.ts', ["  expect(greet('ada')).toBe('Hello, Ada');"], ["  expect(greet('ada')).toBe('Hello, ada');"]), expected: ['assertion-rewritten', 'escalate'] },
  {
    name: "toBe(x) → toBe(what the bug prints at the base)",
    changes: modified('src/a.test.ts', ["  expect(greet('ada')).toBe('Hello, Ada');"], ["  expect(greet('ada')).toBe('Hello, ada');"]),
    baselineOutput: '    Expected: "Hello, Ada"\n    Received: "Hello, ada"\n',
    expected: ['assertion-rewritten', 'reject'],
  },
  { name: 'toEqual(x) → toEqual(y)', changes: modified('test/a.spec.js', ['  expect(split("a,b")).toEqual(["a", "b"]);'], ['  expect(split("a,b")).toEqual(["a,b"]);']), expected: ['assertion-rewritten', 'escalate'] },
  { name: 'toBe → toBeTruthy', changes: modified('src/a.test.ts', ['  expect(add(1, 2)).toBe(3);'], ['  expect(add(1, 2)).toBeTruthy();']), expected: ['assertion-weakened', 'reject'] },
  { name: 'toEqual → toBeDefined', changes: modified('src/a.test.ts', ['  expect(parse(x)).toEqual({ a: 1 });'], ['  expect(parse(x)).toBeDefined();']), expected: ['assertion-weakened', 'reject'] },
  { name: 'toBe → not.toBeNull', changes: modified('src/a.test.ts', ['  expect(find(1)).toBe(user);'], ['  expect(find(1)).not.toBeNull();']), expected: ['assertion-weakened', 'reject'] },
  { name: 'toBe → toBeCloseTo (exact became approximate)', changes: modified('src/a.test.ts', ['  expect(total()).toBe(10);'], ['  expect(total()).toBeCloseTo(10, 0);']), expected: ['assertion-weakened', 'reject'] },
  { name: 'toBeCloseTo(x, 5) → toBeCloseTo(x, 1)', changes: modified('src/a.test.ts', ['  expect(ratio()).toBeCloseTo(0.333, 5);'], ['  expect(ratio()).toBeCloseTo(0.333, 1);']), expected: ['assertion-weakened', 'reject'] },
  { name: 'assert.strictEqual → assert.ok', changes: modified('test/a.js', ['  assert.strictEqual(add(1, 2), 3);'], ['  assert.ok(add(1, 2));']), expected: ['assertion-weakened', 'reject'] },
  { name: 'assertEqual(a, b) → assertTrue(a)', changes: modified('tests/test_a.py', ['        self.assertEqual(add(1, 2), 3)'], ['        self.assertTrue(add(1, 2))']), expected: ['assertion-weakened', 'reject'] },
  { name: 'assert x == 3 → assert x', changes: modified('tests/test_a.py', ['    assert add(1, 2) == 3'], ['    assert add(1, 2)']), expected: ['assertion-weakened', 'reject'] },
  { name: 'assert x == 3 → assert x == 4', changes: modified('tests/test_a.py', ['    assert add(1, 2) == 3'], ['    assert add(1, 2) == 4']), expected: ['assertion-rewritten', 'escalate'] },
  {
    name: 'assert x == 3 → assert x == 5 (what pytest printed)',
    changes: modified('tests/test_a.py', ['    assert add(1, 2) == 3'], ['    assert add(1, 2) == 5']),
    baselineOutput: 'E       assert 5 == 3\nE        +  where 5 = add(1, 2)\n',
    expected: ['assertion-rewritten', 'reject'],
  },
  { name: 'pytest.approx rel widened', changes: modified('tests/test_a.py', ['    assert ratio() == pytest.approx(0.333, rel=1e-6)'], ['    assert ratio() == pytest.approx(0.333, rel=0.5)']), expected: ['assertion-weakened', 'reject'] },
  { name: 'pytest.approx abs widened', changes: modified('tests/test_a.py', ['    assert ratio() == approx(0.333, abs=0.001)'], ['    assert ratio() == approx(0.333, abs=1)']), expected: ['assertion-weakened', 'reject'] },
  { name: 'assertAlmostEqual places lowered', changes: modified('tests/test_a.py', ['        self.assertAlmostEqual(ratio(), 0.333, places=5)'], ['        self.assertAlmostEqual(ratio(), 0.333, places=1)']), expected: ['assertion-weakened', 'reject'] },
  { name: 'assert x == 3 → assert x is not None', changes: modified('tests/test_a.py', ['    assert add(1, 2) == 3'], ['    assert add(1, 2) is not None']), expected: ['assertion-weakened', 'reject'] },
];

describe('assertion rewrites on the parsed diff', () => {
  it.each(REWRITES)('$name → $expected', ({ changes, expected, baselineOutput }) => {
    expect(findings(changes, baselineOutput)).toContainEqual(expected);
  });

  it('a rewrite to a value the base output does not show stays an escalation, not a rejection', () => {
    const changes = modified('src/a.test.ts', ['  expect(add(1, 2)).toBe(3);'], ['  expect(add(1, 2)).toBe(4);']);
    expect(findings(changes, 'Expected: 3\nReceived: -1\n')).toEqual([['assertion-rewritten', 'escalate']]);
  });

  it('reads subjects, strength and tolerance from one line', () => {
    expect(parseAssertions('a.test.ts', "  expect(fn('a, b')).toEqual([1, 2]);")).toMatchObject([{ subjects: ["fn('a,b')"], strength: 'exact', matcher: 'toEqual', expected: '[1, 2]' }]);
    expect(parseAssertions('a.test.ts', '  expect(x).toBeCloseTo(1, 3);')).toMatchObject([{ strength: 'close', tolerance: 0.0005 }]);
    expect(parseAssertions('test_a.py', '    assert f(x) == pytest.approx(2, rel=0.1)')).toMatchObject([{ subjects: ['f(x)'], strength: 'close', tolerance: 0.1 }]);
    expect(parseAssertions('test_a.py', "    assert f(x), 'message'")).toMatchObject([{ subjects: ['f(x)'], strength: 'weak' }]);
    expect(parseAssertions('a.go', 'assert.Equal(t, 1, 2)')).toEqual([]);
  });
});
