import { describe, expect, it } from 'vitest';
import { isBuildOutput, steersVerification } from './ignored-files.js';

describe('ignored files', () => {
  it('tool outputs are build outputs (never a changed path), whatever they hold', () => {
    for (const path of ['__pycache__/', 'src/__pycache__/m.cpython-312.pyc', '.pytest_cache/', 'target/debug/deps/heck-1a2b.rlib', 'node_modules/.cache/x', '.coverage', 'build/conftest.py', 'a.pyc']) {
      expect(isBuildOutput(path), path).toBe(true);
    }
    for (const path of ['conftest.py', 'sitecustomize.py', 'src/textutil.py', '.env', 'notes.txt', '.venv/']) expect(isBuildOutput(path), path).toBe(false);
  });

  it('a file a test run would load is steering, even inside an output directory; logs and notes are not', () => {
    for (const path of ['conftest.py', 'tests/conftest.py', 'build/conftest.py', 'sitecustomize.py', '.venv/lib/python3.12/site-packages/x.pth', 'pytest.ini', '.cargo/config.toml', 'jest.setup.js', 'src/helper.py']) {
      expect(steersVerification(path), path).toBe(true);
    }
    for (const path of ['notes.txt', 'debug.log', 'src/__pycache__/m.cpython-312.pyc', 'target/debug/build.rs.d']) expect(steersVerification(path), path).toBe(false);
  });
});
