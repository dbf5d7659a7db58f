import { describe, expect, it } from 'vitest';
import type { ChangedFile, ChangeSet } from '../ports/index.js';
import { checkDiffIntegrity, type IntegrityKind } from './check-diff-integrity.js';

/** A one-hunk git patch for `path` with the given removed and added lines. */
function hunk(path: string, removed: string[], added: string[]): string {
  return [
    `diff --git a/${path} b/${path}`,
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -1,${removed.length} +1,${added.length} @@`,
    ...removed.map((line) => `-${line}`),
    ...added.map((line) => `+${line}`),
    '',
  ].join('\n');
}

function modified(path: string, removed: string[], added: string[]): ChangeSet {
  return { files: [{ path, status: 'modified', binary: false }], patch: hunk(path, removed, added) };
}

function kinds(changes: ChangeSet, protectedPaths: string[] = []): Array<[IntegrityKind, string]> {
  return checkDiffIntegrity(changes, { protectedPaths }).map((finding) => [finding.kind, finding.action]);
}

interface CheatCase {
  name: string;
  changes: ChangeSet;
  expected: [IntegrityKind, 'reject' | 'escalate'];
  protectedPaths?: string[];
}

const cheats: CheatCase[] = [
  {
    name: 'deletes a JS test file',
    changes: { files: [{ path: 'src/math.test.ts', status: 'deleted', binary: false }], patch: '' },
    expected: ['test-deleted', 'reject'],
  },
  {
    name: 'deletes a Python test file',
    changes: { files: [{ path: 'tests/test_math.py', status: 'deleted', binary: false }], patch: '' },
    expected: ['test-deleted', 'reject'],
  },
  {
    name: 'deletes a Go test file',
    changes: { files: [{ path: 'pkg/math_test.go', status: 'deleted', binary: false }], patch: '' },
    expected: ['test-deleted', 'reject'],
  },
  {
    name: 'renames a test so the runner skips it',
    changes: {
      files: [{ path: 'src/math.ts.bak', from: 'src/math.test.ts', status: 'renamed', binary: false }],
      patch: 'diff --git a/src/math.test.ts b/src/math.ts.bak\nsimilarity index 100%\nrename from src/math.test.ts\nrename to src/math.ts.bak\n',
    },
    expected: ['test-renamed', 'reject'],
  },
  {
    name: 'renames a Java test out of Test suffix',
    changes: {
      files: [{ path: 'src/main/java/MathCheck.java', from: 'src/test/java/MathTest.java', status: 'renamed', binary: false }],
      patch: '',
    },
    expected: ['test-renamed', 'reject'],
  },
  { name: 'it.skip', changes: modified('src/a.test.ts', ["it('adds', () => {"], ["it.skip('adds', () => {"]), expected: ['skip-marker-added', 'reject'] },
  { name: 'describe.only', changes: modified('src/a.spec.js', ["describe('x', () => {"], ["describe.only('x', () => {"]), expected: ['skip-marker-added', 'reject'] },
  { name: 'it.todo', changes: modified('src/a.test.ts', ["it('adds', () => { expect(add(1, 1)).toBe(2); });"], ["it.todo('adds');", 'expect(1).toBe(1);']), expected: ['skip-marker-added', 'reject'] },
  { name: 'xit', changes: modified('test/a.js', ["it('adds', () => {"], ["xit('adds', () => {"]), expected: ['skip-marker-added', 'reject'] },
  { name: 'xdescribe', changes: modified('__tests__/a.js', ["describe('x', () => {"], ["xdescribe('x', () => {"]), expected: ['skip-marker-added', 'reject'] },
  // From the real-repo end-to-end test (wooorm/comma-separated-tokens: one root test.js on node:test).
  { name: 'node:test { skip: true } in a root test.js', changes: modified('test.js', ["  await t.test('.parse()', function () {"], ["  await t.test('.parse()', {skip: true}, function () {"]), expected: ['skip-marker-added', 'reject'] },
  { name: "node:test { todo: 'later' }", changes: modified('test/a.test.mjs', ["test('parses', () => {"], ["test('parses', { todo: 'later' }, () => {"]), expected: ['skip-marker-added', 'reject'] },
  { name: 'assert.deepEqual replaced by assert.ok(true)', changes: modified('test.js', ["    assert.deepEqual(parse(' a ,b'), ['a', 'b'], 'should work')"], ["    assert.ok(true, 'should work')"]), expected: ['assertion-vacuous', 'reject'] },
  { name: 'expect(1).toBe(1) replacing a real check', changes: modified('src/a.test.ts', ['  expect(add(1, 2)).toBe(3);'], ['  expect(1).toBe(1);']), expected: ['assertion-vacuous', 'reject'] },
  {
    name: 'an expected value rewritten inside its string literals only (a trailing space)',
    changes: modified('test.js', ["    assert.deepEqual(parse(' a ,b'), ['a', 'b'], 'should work')"], ["    assert.deepEqual(parse(' a ,b'), ['a ', 'b'], 'should work')"]),
    expected: ['assertion-rewritten', 'escalate'],
  },
  { name: 'pytest skip', changes: modified('tests/test_a.py', ['def test_add():'], ['@pytest.mark.skip(reason="flaky")', 'def test_add():']), expected: ['skip-marker-added', 'reject'] },
  { name: 'pytest xfail', changes: modified('tests/test_a.py', ['def test_add():'], ['@pytest.mark.xfail', 'def test_add():']), expected: ['skip-marker-added', 'reject'] },
  { name: 'go t.Skip', changes: modified('a_test.go', ['func TestAdd(t *testing.T) {'], ['func TestAdd(t *testing.T) {', '\tt.Skip("later")']), expected: ['skip-marker-added', 'reject'] },
  { name: 'rust #[ignore]', changes: modified('src/lib.rs', ['    #[test]'], ['    #[test]', '    #[ignore]']), expected: ['skip-marker-added', 'reject'] },
  { name: 'junit @Disabled', changes: modified('src/test/java/MathTest.java', ['  @Test'], ['  @Test', '  @Disabled']), expected: ['skip-marker-added', 'reject'] },
  { name: 'rspec xit', changes: modified('spec/math_spec.rb', ["  it 'adds' do"], ["  xit 'adds' do"]), expected: ['skip-marker-added', 'reject'] },
  { name: 'removes expect()', changes: modified('src/a.test.ts', ['  expect(add(1, 2)).toBe(3);'], []), expected: ['assertion-removed', 'reject'] },
  { name: 'removes python assert', changes: modified('tests/test_a.py', ['    assert add(1, 2) == 3'], ['    pass']), expected: ['assertion-removed', 'reject'] },
  { name: 'removes assertEquals', changes: modified('src/test/java/MathTest.java', ['    assertEquals(3, add(1, 2));'], []), expected: ['assertion-removed', 'reject'] },
  { name: 'removes should', changes: modified('test/a.js', ['  add(1, 2).should.equal(3);'], []), expected: ['assertion-removed', 'reject'] },
  { name: 'removes rust assert_eq!', changes: modified('tests/math.rs', ['    assert_eq!(add(1, 2), 3);'], []), expected: ['assertion-removed', 'reject'] },
  { name: 'removes go t.Errorf', changes: modified('a_test.go', ['\t\tt.Errorf("got %d", got)'], []), expected: ['assertion-removed', 'reject'] },
  { name: 'weakens toBe(3) to toBeDefined()', changes: modified('src/a.test.ts', ['  expect(add(1, 2)).toBe(3);'], ['  expect(add(1, 2)).toBeDefined();']), expected: ['assertion-weakened', 'reject'] },
  { name: 'weakens toEqual to toBeTruthy', changes: modified('test/a.js', ['  expect(list).toEqual([1, 2]);'], ['  expect(list).toBeTruthy();']), expected: ['assertion-weakened', 'reject'] },
  { name: 'weakens python == to is not None', changes: modified('tests/test_a.py', ['    assert add(1, 2) == 3'], ['    assert add(1, 2) is not None']), expected: ['assertion-weakened', 'reject'] },
  { name: 'weakens assertEqual to assertIsNotNone', changes: modified('tests/test_a.py', ['        self.assertEqual(add(1, 2), 3)'], ['        self.assertIsNotNone(add(1, 2))']), expected: ['assertion-weakened', 'reject'] },
  { name: 'weakens testify Equal to NotNil', changes: modified('a_test.go', ['\tassert.Equal(t, 3, add(1, 2))'], ['\tassert.NotNil(t, add(1, 2))']), expected: ['assertion-weakened', 'reject'] },
  {
    name: 'a patch that does not parse (cut inside a hunk) hides nothing',
    changes: {
      files: [{ path: 'src/a.test.ts', status: 'modified', binary: false }],
      patch: 'diff --git a/src/a.test.ts b/src/a.test.ts\n--- a/src/a.test.ts\n+++ b/src/a.test.ts\n@@ -1,3 +1,3 @@\n-it(\n+it.skip(\n… patch truncated\n',
    },
    expected: ['patch-incomplete', 'escalate'],
  },
  {
    name: 'a patch with file headers but no hunks (the old memory workspace) hides nothing',
    changes: {
      files: [{ path: 'src/a.test.ts', status: 'modified', binary: false }],
      patch: "diff --git a/src/a.test.ts b/src/a.test.ts\n--- a/src/a.test.ts\n+++ b/src/a.test.ts\n-it('x', () => {\n+it.skip('x', () => {",
    },
    expected: ['patch-incomplete', 'escalate'],
  },
  { name: 'eslint rule off', changes: modified('.eslintrc.json', ['    "no-unused-vars": "error"'], ['    "no-unused-vars": "off"']), expected: ['config-loosened', 'reject'] },
  { name: 'eslint flat config rule to warn', changes: modified('eslint.config.js', ["    'no-console': 'error',"], ["    'no-console': 'warn',"]), expected: ['config-loosened', 'reject'] },
  { name: 'eslint-disable added', changes: modified('src/a.ts', ['const x = 1;'], ['// eslint-disable-next-line', 'const x = 1;']), expected: ['config-loosened', 'reject'] },
  { name: '@ts-ignore added', changes: modified('src/a.ts', ['const x: number = y;'], ['// @ts-ignore', 'const x: number = y;']), expected: ['config-loosened', 'reject'] },
  { name: '@ts-nocheck added', changes: modified('src/a.ts', [], ['// @ts-nocheck']), expected: ['config-loosened', 'reject'] },
  { name: 'tsconfig strict false', changes: modified('tsconfig.json', ['    "strict": true,'], ['    "strict": false,']), expected: ['config-loosened', 'reject'] },
  { name: 'tsconfig strict flag removed', changes: modified('tsconfig.build.json', ['    "noUncheckedIndexedAccess": true,'], []), expected: ['config-loosened', 'reject'] },
  { name: 'jest coverage lowered', changes: modified('jest.config.js', ['      branches: 80,'], ['      branches: 40,']), expected: ['config-loosened', 'reject'] },
  { name: 'pyproject fail_under lowered', changes: modified('pyproject.toml', ['fail_under = 90'], ['fail_under = 50']), expected: ['config-loosened', 'reject'] },
  { name: 'coverage threshold removed', changes: modified('vitest.config.ts', ['        lines: 85,'], []), expected: ['config-loosened', 'reject'] },
  { name: 'vitest passWithNoTests', changes: modified('vitest.config.ts', ['  test: {'], ['  test: {', '    passWithNoTests: true,']), expected: ['config-loosened', 'reject'] },
  { name: 'test script always succeeds', changes: modified('package.json', ['    "test": "vitest run",'], ['    "test": "vitest run || true",']), expected: ['config-loosened', 'reject'] },
  { name: 'GitHub workflow edited', changes: modified('.github/workflows/ci.yml', ['      - run: npm test'], ['      - run: echo skip']), expected: ['ci-workflow-edited', 'escalate'] },
  { name: 'GitLab CI edited', changes: modified('.gitlab-ci.yml', ['  script: make test'], ['  script: "true"']), expected: ['ci-workflow-edited', 'escalate'] },
  {
    name: 'protected test suite edited (honest-looking content)',
    changes: modified('test/golden/output.txt', ['a'], ['b']),
    protectedPaths: ['test/**'],
    expected: ['protected-path-edited', 'reject'],
  },
  {
    name: 'renamed out of a protected path',
    changes: { files: [{ path: 'old/fixtures.json', from: 'fixtures/data.json', status: 'renamed', binary: false }], patch: '' },
    protectedPaths: ['fixtures/**'],
    expected: ['protected-path-edited', 'reject'],
  },
  {
    name: 'test file missing from a truncated patch',
    changes: { files: [{ path: 'src/a.test.ts', status: 'modified', binary: false }], patch: '' },
    expected: ['patch-incomplete', 'escalate'],
  },
];

describe('checkDiffIntegrity: cheating corpus', () => {
  it.each(cheats)('$name → $expected', ({ changes, expected, protectedPaths }) => {
    expect(kinds(changes, protectedPaths)).toContainEqual(expected);
  });
});

const honest: Array<{ name: string; changes: ChangeSet }> = [
  { name: 'fixes source code', changes: modified('src/math.ts', ['  return a - b;'], ['  return a + b;']) },
  {
    name: 'adds a test with assertions',
    changes: {
      files: [{ path: 'src/math.test.ts', status: 'added', binary: false }],
      patch: hunk('src/math.test.ts', [], ["import { expect, it } from 'vitest';", "it('adds', () => {", '  expect(add(1, 2)).toBe(3);', '});']),
    },
  },
  { name: 'adds a presence check next to an exact one', changes: modified('src/a.test.ts', ['  expect(add(1, 2)).toBe(3);'], ['  expect(add(1, 2)).toBe(3);', '  expect(result).toBeDefined();']) },
  { name: 'strengthens toBeDefined() to toBe(3)', changes: modified('src/a.test.ts', ['  expect(add(1, 2)).toBeDefined();'], ['  expect(add(1, 2)).toBe(3);']) },
  { name: 'rewrites an unrelated line next to an assertion', changes: modified('src/a.test.ts', ['  const x = 1;', '  expect(add(1, 2)).toBe(3);'], ['  const x = 2;', '  expect(add(1, 2)).toBe(3);']) },
  { name: 'tightens a tolerance', changes: modified('src/a.test.ts', ['  expect(ratio()).toBeCloseTo(0.5, 1);'], ['  expect(ratio()).toBeCloseTo(0.5, 5);']) },
  { name: 'tightens pytest.approx', changes: modified('tests/test_a.py', ['    assert ratio() == pytest.approx(0.5, rel=1e-2)'], ['    assert ratio() == pytest.approx(0.5, rel=1e-6)']) },
  { name: 'same literal, different subjects', changes: modified('tests/test_a.py', ['    assert add(1, 2) == 3'], ['    assert add(1, 2) == 3', '    assert mul(1, 3) == 3']) },
  { name: 'assertTrue next to an unchanged assertEqual', changes: modified('tests/test_a.py', ['        self.assertEqual(add(1, 2), 3)'], ['        self.assertEqual(add(1, 2), 3)', '        self.assertTrue(ready())']) },
  { name: 'moves a test to another line', changes: modified('tests/test_a.py', ['    assert add(1, 2) == 3', '    x = 1'], ['    x = 1', '    assert add(1, 2) == 3']) },
  { name: 'node:test { skip: false } runs the test', changes: modified('test.js', ["test('parses', () => {"], ["test('parses', { skip: false }, () => {"]) },
  { name: 'reformats an expected value outside its strings', changes: modified('test.js', ["  assert.deepEqual(parse('a,b'), [ 'a', 'b' ])"], ["  assert.deepEqual(parse('a,b'), ['a', 'b'])"]) },
  { name: 'keeps an existing constant assertion', changes: modified('test.js', ['  assert.ok(true)', '  const x = 1'], ['  assert.ok(true)', '  const x = 2']) },
  { name: 'adds a placeholder test asserting a constant (replaces no check)', changes: modified('test/a.test.js', [], ["it('x', () => { expect(1).toBe(1); });"]) },
  { name: 'raises a coverage threshold', changes: modified('jest.config.js', ['      branches: 80,'], ['      branches: 85,']) },
  { name: 'turns a lint rule on', changes: modified('.eslintrc.json', ['    "no-console": "off"'], ['    "no-console": "error"']) },
  { name: 'removes an eslint-disable', changes: modified('src/a.ts', ['// eslint-disable-next-line', 'const x = 1;'], ['const x = 1;']) },
  { name: 'tightens tsconfig', changes: modified('tsconfig.json', ['    "strict": false,'], ['    "strict": true,']) },
  { name: 'uses stream.skip() in source', changes: modified('src/reader.ts', ['  reader.next();'], ['  reader.skip(2);']) },
  { name: 'documents the it.skip convention in markdown', changes: modified('docs/testing.md', ['Old.'], ['Never use `it.skip(`.']) },
  { name: 'bumps package version', changes: modified('package.json', ['  "version": "1.0.0",'], ['  "version": "1.0.1",']) },
  {
    name: 'renames a source file',
    changes: { files: [{ path: 'src/b.ts', from: 'src/a.ts', status: 'renamed', binary: false }], patch: 'diff --git a/src/a.ts b/src/b.ts\nsimilarity index 100%\nrename from src/a.ts\nrename to src/b.ts\n' },
  },
  { name: 'deletes a source file', changes: { files: [{ path: 'src/old.ts', status: 'deleted', binary: false }], patch: '' } },
  { name: 'adds a binary asset', changes: { files: [{ path: 'test/fixtures/logo.png', status: 'added', binary: true }], patch: '' } },
];

describe('checkDiffIntegrity: honest changes', () => {
  it.each(honest)('$name → no findings', ({ changes }) => {
    expect(checkDiffIntegrity(changes, { protectedPaths: ['fixtures/**'] })).toEqual([]);
  });

  it('checks protected paths with dot-files included', () => {
    const files: ChangedFile[] = [{ path: '.loop/tests/a.json', status: 'modified', binary: false }];
    expect(kinds({ files, patch: hunk('.loop/tests/a.json', ['1'], ['2']) }, ['**/tests/**'])).toEqual([['protected-path-edited', 'reject']]);
  });

  it('reports a test renamed within test conventions as an escalation, not a rejection', () => {
    const changes: ChangeSet = {
      files: [{ path: 'test/unit/math.test.ts', from: 'src/math.test.ts', status: 'renamed', binary: false }],
      patch: '',
    };
    expect(kinds(changes)).toEqual([['test-renamed', 'escalate']]);
  });
});
