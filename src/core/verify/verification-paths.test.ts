import { describe, expect, it } from 'vitest';
import type { ChangeSet } from '../ports/index.js';
import { isVerificationPath, packageJsonVerificationChange, verificationEdits } from './verification-paths.js';

describe('isVerificationPath', () => {
  it.each([
    'src/math.test.ts', 'src/math.spec.js', 'src/__tests__/a.js', 'test/helpers.js', 'tests/util.py', 'tests/fixtures/data.json',
    'test_math.py', 'pkg/math_test.py', 'conftest.py', 'pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml', 'pkg/a_test.go',
    'jest.config.js', 'jest.config.ts', 'vitest.config.mts', 'karma.conf.js', 'playwright.config.ts', '.mocharc.yml',
    '.nycrc', '.nycrc.json', '.c8rc.json', 'tsconfig.json', 'tsconfig.build.json', '.eslintrc.cjs', 'eslint.config.js', 'Makefile',
    '.github/workflows/ci.yml', '.gitlab-ci.yml', 'spec/math_spec.rb', 'test.js', 'test.mjs', 'packages/core/test.ts', 'tests.js', 'spec.cjs', 'app/tests.py',
  ])('%s is a verification path', (path) => {
    expect(isVerificationPath(path)).toBe(true);
  });

  it.each(['src/math.ts', 'src/testing.ts', 'README.md', 'docs/test-plan.md', 'package.json', 'Cargo.toml', 'src/contest.py', 'latest/index.js', 'src/contest.js', 'attest.mjs', 'test.json', 'tests.md'])('%s is not', (path) => {
    expect(isVerificationPath(path)).toBe(false);
  });
});

describe('packageJsonVerificationChange', () => {
  const pkg = (value: object) => JSON.stringify(value, null, 2);
  it('names the scripts or tool configuration that changed, compared as parsed JSON', () => {
    expect(packageJsonVerificationChange(pkg({ scripts: { test: 'jest' } }), pkg({ scripts: { test: "jest --testNamePattern 'adds'" } }))).toEqual(['scripts']);
    expect(packageJsonVerificationChange(pkg({ jest: { coverageThreshold: { global: { lines: 90 } } } }), pkg({ jest: { coverageThreshold: { global: { lines: 10 } } } }))).toEqual(['jest']);
    expect(packageJsonVerificationChange(pkg({ scripts: { test: 'jest' } }), pkg({}))).toEqual(['scripts']);
  });

  it('ignores version, dependency and formatting changes (key order and whitespace included)', () => {
    expect(packageJsonVerificationChange(pkg({ version: '1.0.0', scripts: { a: 'x', b: 'y' } }), JSON.stringify({ scripts: { b: 'y', a: 'x' }, version: '1.0.1', dependencies: { c: '1' } }))).toEqual([]);
  });

  it('fails closed on a version that does not parse', () => {
    expect(packageJsonVerificationChange(pkg({ scripts: {} }), '{ "scripts": ')).toEqual(['(unparseable)']);
  });
});

describe('verificationEdits', () => {
  it('lists test paths and package.json only when its scripts changed, old names of renames included', async () => {
    const changes: ChangeSet = {
      files: [
        { path: 'package.json', status: 'modified', binary: false },
        { path: 'src/a.ts', status: 'modified', binary: false },
        { path: 'src/b.test.ts', from: 'test/b.test.ts', status: 'renamed', binary: false },
        { path: 'sub/package.json', status: 'modified', binary: false },
        { path: 'dist/out.js', status: 'untracked', binary: false },
      ],
      patch: '',
    };
    const versions: Record<string, { before: string; after: string }> = {
      'package.json': { before: '{"version":"1.0.0"}', after: '{"version":"1.0.1"}' },
      'sub/package.json': { before: '{"scripts":{"test":"jest"}}', after: '{"scripts":{"test":"jest || true"}}' },
    };
    expect(await verificationEdits(changes, async (path) => versions[path] ?? { before: null, after: null })).toEqual([
      { path: 'src/b.test.ts', detail: 'test file renamed' },
      { path: 'sub/package.json', detail: 'package.json scripts changed' },
      { path: 'test/b.test.ts', detail: 'test file renamed' },
    ]);
  });
});
