import { describe, expect, it } from 'vitest';
import { cargoTestConfigChange, pythonTestCodeChanged, pythonTestItems, rustTestCodeChanged, rustTestItems } from './test-code.js';
import { isVerificationPath, verificationEdits } from './verification-paths.js';
import type { ChangeSet } from '../ports/index.js';

const LIB = 'pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(1, "}".len() as i64), 2); // a } in a string\n    }\n}\n';

describe('tests beside the code (Rust)', () => {
  it('finds the #[cfg(test)] module whole, braces in strings and comments aside', () => {
    expect(rustTestItems(LIB)).toEqual([LIB.slice(LIB.indexOf('#[cfg(test)]'), LIB.length - 1)]);
  });

  it('an edit to the test module (an #[ignore], an assertion) is a test-code change; an edit to the code alone is not', () => {
    expect(rustTestCodeChanged(LIB, LIB.replace('    #[test]\n', '    #[test]\n    #[ignore]\n'))).toBe(true);
    expect(rustTestCodeChanged(LIB, LIB.replace('), 2);', '), 3);'))).toBe(true);
    expect(rustTestCodeChanged(LIB, LIB.replace('#[cfg(test)]', ''))).toBe(true);
    expect(rustTestCodeChanged(LIB, LIB.replace('    a + b\n', '    b + a\n'))).toBe(false);
    // An #[ignore] written above a free #[test] fn belongs to it.
    const free = 'fn f() {}\n\n#[test]\nfn t() {}\n';
    expect(rustTestCodeChanged(free, free.replace('#[test]', '#[ignore]\n#[test]'))).toBe(true);
    expect(rustTestCodeChanged(free, free.replace('fn f() {}', 'fn f() { let _ = 1; }'))).toBe(false);
  });

  it('Cargo.toml counts only where it shapes which tests build and run', () => {
    const base = '[package]\nname = "a"\nversion = "0.1.0"\n\n[dependencies]\n';
    expect(cargoTestConfigChange(base, `${base}\n[lib]\ntest = false\n`)).toEqual(['[lib]']);
    expect(cargoTestConfigChange(base, base.replace('version = "0.1.0"', 'version = "0.1.0"\nautotests = false'))).toEqual(['[package] autotests/build']);
    expect(cargoTestConfigChange(base, `${base}\n[[test]]\nname = "x"\nharness = false\n`)).toEqual(['[[test]]']);
    expect(cargoTestConfigChange(base, `${base}\n[profile.test]\nopt-level = 3\n`)).toEqual(['[profile.test]']);
    expect(cargoTestConfigChange(base, `${base}serde = "1"\n`)).toEqual([]);
    expect(cargoTestConfigChange(base, base.replace('version = "0.1.0"', 'version = "0.2.0"'))).toEqual([]);
  });

  it('verificationEdits names them, marks in-source test code (the base-test rule cannot restore it), and .cargo/config.toml / .pytest.ini are configuration', async () => {
    const files: Record<string, [string | null, string | null]> = {
      'src/lib.rs': [LIB, LIB.replace('    #[test]\n', '    #[test]\n    #[ignore]\n')],
      'src/other.rs': ['fn a() {}\n', 'fn a() { }\n'],
      'Cargo.toml': ['[package]\nname = "a"\n', '[package]\nname = "a"\n\n[lib]\ntest = false\n'],
      '.cargo/config.toml': [null, '[target.x86_64-unknown-linux-gnu]\nrunner = "x"\n'],
    };
    const changes = { files: Object.keys(files).map((path) => ({ path, status: 'modified' as const })), diff: '' } as unknown as ChangeSet;
    const edits = await verificationEdits(changes, async (path) => ({ before: files[path]?.[0] ?? null, after: files[path]?.[1] ?? null }));
    expect(edits).toEqual([
      { path: '.cargo/config.toml', detail: 'test/lint/CI configuration modified' },
      { path: 'Cargo.toml', detail: 'Cargo.toml [lib] changed (which tests build and run)' },
      { path: 'src/lib.rs', detail: 'test code (#[test] / #[cfg(test)]) modified', inSource: true },
    ]);
    expect(isVerificationPath('.pytest.ini')).toBe(true);
    expect(isVerificationPath('.cargo/config')).toBe(true);
    expect(isVerificationPath('pkg/sub/conftest.py')).toBe(true);
    expect(isVerificationPath('src/lib.rs')).toBe(false);
  });
});

describe('tests beside the code (Python)', () => {
  const MODULE = 'import pytest\n\n\ndef helper(x):\n    return x + 1\n\n\ndef test_helper():\n    assert helper(1) == 2\n\n\nclass TestMore:\n    def test_it(self):\n        assert helper(0) == 1\n';

  it('finds test_* functions and Test* classes with their decorators', () => {
    expect(pythonTestItems(MODULE)).toEqual(['def test_helper():\n    assert helper(1) == 2', 'class TestMore:\n    def test_it(self):\n        assert helper(0) == 1']);
  });

  it('a skip decorator or an edited assertion is a test-code change; an edit to the helper alone is not', () => {
    expect(pythonTestCodeChanged(MODULE, MODULE.replace('def test_helper', '@pytest.mark.skip\ndef test_helper'))).toBe(true);
    expect(pythonTestCodeChanged(MODULE, MODULE.replace('helper(0) == 1', 'helper(0) >= 0'))).toBe(true);
    expect(pythonTestCodeChanged(MODULE, MODULE.replace('return x + 1', 'return 1 + x'))).toBe(false);
  });
});
