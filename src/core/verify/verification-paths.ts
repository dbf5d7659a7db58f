/**
 * Which paths decide whether verification passes: test files, test/lint/type/
 * coverage configuration and the scripts that run them. An agent that edits
 * one of these can make a red build green without fixing anything, so such an
 * edit is a human's decision, and verification reruns with the base's
 * versions of them. Pure: paths and file contents in, answers out.
 */
import type { ChangeSet } from '../ports/index.js';
import { cargoTestConfigChange, pythonTestCodeChanged, rustTestCodeChanged } from './test-code.js';
import { configKindOf, isCiFile, isTestFile } from './test-conventions.js';
import { memoByString } from '../text/memo-by-string.js';

const TEST_DIRECTORY = /(^|\/)(tests?|__tests__|spec)\//;
const RUNNER_CONFIG =
  /^(?:(?:jest|vitest|vite|karma|playwright|cypress|ava|wdio|nyc|c8|babel)\.config\.[cm]?[jt]sx?(?:on)?|\.mocharc(?:\.[a-z]+)?|\.nycrc(?:\.[a-z]+)?|\.c8rc(?:\.[a-z]+)?|karma\.conf\.[cm]?js|jest\.setup\.[cm]?[jt]s|vitest\.setup\.[cm]?[jt]s|\.babelrc(?:\.[a-z]+)?)$/;
const LINT_CONFIG = /^(?:\.eslintrc(?:\.[a-z]+)?|eslint\.config\.[cm]?[jt]s|\.eslintignore|biome\.jsonc?|\.prettierrc(?:\.[a-z]+)?|\.golangci\.ya?ml|clippy\.toml|\.flake8|\.pylintrc|ruff\.toml|\.ruff\.toml|mypy\.ini)$/;
const PYTHON_CONFIG = new Set(['conftest.py', 'pytest.ini', '.pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml', 'noxfile.py', '.coveragerc']);
const BUILD_SCRIPTS = new Set(['Makefile', 'makefile', 'GNUmakefile', 'justfile', 'Justfile', 'Taskfile.yml', 'Rakefile']);

/**
 * True when a path is a test file, test/lint/type/coverage configuration, or a
 * script that runs them (everything but `package.json`, which only counts when
 * its scripts or tool configuration change: see `packageJsonVerificationChange`).
 *
 * @example
 * ```ts
 * isVerificationPath('src/math.test.ts'); // → true
 * isVerificationPath('jest.config.js'); // → true
 * isVerificationPath('src/math.ts'); // → false
 * ```
 */
export function isVerificationPath(path: string): boolean {
  return verificationPath(path);
}

const verificationPath = memoByString(classifyVerificationPath);

function classifyVerificationPath(path: string): boolean {
  const name = path.split('/').pop() ?? path;
  if (name === 'package.json') return false;
  if (isTestFile(path) || TEST_DIRECTORY.test(path) || isCiFile(path)) return true;
  if (RUNNER_CONFIG.test(name) || LINT_CONFIG.test(name) || PYTHON_CONFIG.has(name) || BUILD_SCRIPTS.has(name)) return true;
  if (/^tsconfig(?:\..+)?\.json$/.test(name) || name === 'jsconfig.json') return true;
  // Cargo's runner, aliases and rustflags can skip or filter tests (`runner = "… --skip x"`).
  if (/(^|\/)\.cargo\/config(?:\.toml)?$/.test(path)) return true;
  const kind = configKindOf(path);
  return kind !== null && kind !== 'build';
}

/** package.json fields that run or configure tests, lint, types or coverage. */
const PACKAGE_JSON_FIELDS = ['scripts', 'jest', 'vitest', 'mocha', 'ava', 'c8', 'nyc', 'eslintConfig', 'prettier', 'babel', 'xo', 'standard', 'tap'] as const;

/**
 * Which verification fields of a package.json differ between two versions
 * (`scripts`, `jest`, `eslintConfig`, …), compared as parsed JSON. A version
 * that is missing or does not parse counts as changed in every field it could
 * hide (fail closed): `['(unparseable)']`.
 *
 * @example
 * ```ts
 * packageJsonVerificationChange('{"scripts":{"test":"jest"}}', '{"scripts":{"test":"jest -t x"}}'); // → ['scripts']
 * packageJsonVerificationChange('{"version":"1.0.0"}', '{"version":"1.0.1"}'); // → []
 * ```
 */
export function packageJsonVerificationChange(before: string | null, after: string | null): string[] {
  const parse = (text: string | null): Record<string, unknown> | null | 'invalid' => {
    if (text === null) return null;
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : 'invalid';
    } catch {
      return 'invalid';
    }
  };
  const old = parse(before);
  const now = parse(after);
  if (old === 'invalid' || now === 'invalid') return ['(unparseable)'];
  return PACKAGE_JSON_FIELDS.filter((field) => canonical(old?.[field]) !== canonical(now?.[field]));
}

function canonical(value: unknown): string {
  if (value === undefined) return '';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonical(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** One changed verification path and why it counts. */
export interface VerificationEdit {
  path: string;
  detail: string;
  /**
   * The tests live in a source file (Rust `#[cfg(test)]` in `src/lib.rs`): putting the base's version back would
   * revert the fix too, so the base-test rule leaves it; the per-test rule and the test-edit rule still hold.
   */
  inSource?: true;
}

/**
 * The verification paths a change touches (old and new names of renames), and
 * for each package.json the fields that changed. `readVersions` gives a
 * package.json's base and current text.
 *
 * @example
 * ```ts
 * await verificationEdits(changes, async () => ({ before: null, after: null }));
 * // → [{ path: 'src/math.test.ts', detail: 'test file modified' }]
 * ```
 */
export async function verificationEdits(
  changes: ChangeSet,
  readVersions: (path: string) => Promise<{ before: string | null; after: string | null }>,
): Promise<VerificationEdit[]> {
  const edits = new Map<string, VerificationEdit>();
  for (const file of changes.files) {
    if (file.status === 'untracked') continue;
    // The new path, then the old one of a rename (no Set and spread per file: every tick's change passes here).
    for (const path of file.from && file.from !== file.path ? [file.path, file.from] : [file.path]) {
      if (edits.has(path)) continue;
      const name = path.slice(path.lastIndexOf('/') + 1);
      if (name === 'package.json') {
        const { before, after } = await readVersions(path);
        const fields = packageJsonVerificationChange(before, after);
        if (fields.length > 0) edits.set(path, { path, detail: `package.json ${fields.join(', ')} changed` });
      } else if (name === 'Cargo.toml') {
        const { before, after } = await readVersions(path);
        const sections = cargoTestConfigChange(before, after);
        if (sections.length > 0) edits.set(path, { path, detail: `Cargo.toml ${sections.join(', ')} changed (which tests build and run)` });
      } else if (path.endsWith('.rs') && !isVerificationPath(path)) {
        // Rust keeps unit tests beside the code: an edit to a #[test] fn or a #[cfg(test)] module is a test edit.
        const { before, after } = await readVersions(path);
        if (rustTestCodeChanged(before, after)) edits.set(path, { path, detail: `test code (#[test] / #[cfg(test)]) ${file.status}`, inSource: true });
      } else if (path.endsWith('.py') && !isVerificationPath(path)) {
        // pytest collects test_* functions and Test* classes from whatever modules `python_files` names.
        const { before, after } = await readVersions(path);
        if (pythonTestCodeChanged(before, after)) edits.set(path, { path, detail: `test code (test_* / Test*) ${file.status}`, inSource: true });
      } else if (isVerificationPath(path)) {
        edits.set(path, { path, detail: `${isTestFile(path) ? 'test file' : 'test/lint/CI configuration'} ${file.status}` });
      }
    }
  }
  return edits.size === 0 ? [] : [...edits.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
