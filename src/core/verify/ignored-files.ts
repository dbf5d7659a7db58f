/**
 * Files git ignores, seen from verification: a build or test output (never a changed path, never a finding) or
 * a file that could steer a test run (a `conftest.py`, `sitecustomize.py`, a `.pth`, a runner config, source
 * code) — which verification never sees, because it runs on the tree that will be committed. Pure.
 */
import { isVerificationPath } from './verification-paths.js';

/** Directories only tools write: caches, build and coverage outputs. */
const OUTPUT_DIRECTORIES = new Set([
  '__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.hypothesis', '.tox', '.nox', 'htmlcov', '.eggs',
  'target', '.cache', '.nyc_output', 'coverage', '.turbo', '.next', '.parcel-cache', '.vitest', 'dist', 'build', 'out',
]);
const OUTPUT_FILES = /(?:\.py[co]|\.coverage(?:\..+)?|coverage\.xml|junit\.xml|\.tsbuildinfo|\.log|\.DS_Store|\.eslintcache)$/;
/** What an interpreter or runner loads without being named: Python's startup hooks and path files, pytest plugins. */
const LOADED_IMPLICITLY = /(?:^|\/)(?:sitecustomize\.py|usercustomize\.py|[^/]+\.pth|conftest\.py)$/;
const SOURCE_CODE = /\.(?:py|pyi|[cm]?[jt]sx?|rs|go|rb|java|kt|toml|cfg|ini|ya?ml|json)$/;

/**
 * True when an ignored path is a tool's output (a cache, a build or coverage directory, bytecode): written by
 * running tests or builds, so it is no part of a change.
 *
 * @example
 * ```ts
 * isBuildOutput('src/__pycache__/'); // → true
 * isBuildOutput('target/debug/deps/heck-1a2b'); // → true
 * isBuildOutput('conftest.py'); // → false
 * ```
 */
export function isBuildOutput(path: string): boolean {
  const segments = path.replace(/\/+$/, '').split('/');
  if (segments.slice(0, -1).some((segment) => OUTPUT_DIRECTORIES.has(segment))) return true;
  const name = segments[segments.length - 1] ?? '';
  // A path listed as a directory (`…/`) is an output when its own name is one.
  return OUTPUT_DIRECTORIES.has(name) || (OUTPUT_FILES.test(name) && !LOADED_IMPLICITLY.test(path));
}

/**
 * True when an ignored file could change what a test run does had verification seen it: a file an interpreter
 * or runner loads by its place (conftest.py, sitecustomize.py, a .pth), test or runner configuration, or code.
 *
 * @example
 * ```ts
 * steersVerification('conftest.py'); // → true
 * steersVerification('.venv/lib/python3.12/site-packages/hook.pth'); // → true
 * steersVerification('notes.txt'); // → false
 * ```
 */
export function steersVerification(path: string): boolean {
  if (LOADED_IMPLICITLY.test(path)) return true;
  if (isBuildOutput(path)) return false;
  return isVerificationPath(path) || SOURCE_CODE.test(path);
}
