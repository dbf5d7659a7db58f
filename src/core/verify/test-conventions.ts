/**
 * Path conventions: which files are tests, lint/type/coverage configuration,
 * or CI definitions, across JS/TS, Python, Go, Rust, Java/Kotlin, Ruby, C#.
 */
import { memoByString } from '../text/memo-by-string.js';

const TEST_FILE_PATTERNS: readonly RegExp[] = [
  /\.(test|spec)\.[cm]?[jt]sx?$/, // JS/TS
  /(^|\/)__tests__\//,
  /(^|\/)__snapshots__\//,
  /(^|\/)test_[^/]*\.py$/, // Python
  /_test\.py$/,
  /(^|\/)conftest\.py$/,
  /_test\.go$/, // Go
  /(^|\/)tests\/[^/]*\.rs$/, // Rust integration tests
  /(^|\/)src\/test\//, // Maven/Gradle layout
  /(Test|Tests|IT|Spec)\.(java|kt|scala|groovy)$/,
  /_spec\.rb$/, // Ruby
  /_test\.rb$/,
  /(^|\/)spec\//,
  /Tests?\.cs$/, // C#
  /(^|\/)tests?\/.*\.(?:[cm]?[jt]sx?|py|rb|go|rs|java|kt|php|sh|bats)$/,
  // A suite in one file named for what it is: test.js at the root (wooorm's hundreds of packages, many small
  // libraries), tests.py (Django apps). Found by the real-repo end-to-end test: without it, edits to such a file
  // were neither test edits nor checked assertions, and a rewritten expectation was committed.
  /(^|\/)(?:tests?|spec)\.[cm]?[jt]sx?$/,
  /(^|\/)tests\.py$/,
];

// Each tick asks about the same paths again (the diff check, verification edits): answers are remembered (memo-by-string.ts).
const testFile = memoByString((path) => TEST_FILE_PATTERNS.some((pattern) => pattern.test(path)));
const ciFile = memoByString((path) => CI_PATTERNS.some((pattern) => pattern.test(path)));
const configKind = memoByString(classifyConfig);

/** True when the path is a test by common conventions. */
export function isTestFile(path: string): boolean {
  return testFile(path);
}

const CI_PATTERNS: readonly RegExp[] = [
  /^\.github\/workflows\//,
  /^\.github\/actions\//,
  /^\.gitlab-ci\.yml$/,
  /^\.gitlab\/ci\//,
  /^\.circleci\//,
  /^\.buildkite\//,
  /^\.ci\//,
  /^azure-pipelines\.ya?ml$/,
  /^bitbucket-pipelines\.yml$/,
  /^Jenkinsfile$/,
  /^\.travis\.yml$/,
  /^\.drone\.yml$/,
  /^\.woodpecker(\.yml|\/)/,
];

/** True for CI definitions (GitHub Actions, GitLab, CircleCI, Buildkite, Jenkins, Travis…). */
export function isCiFile(path: string): boolean {
  return ciFile(path);
}

export type ConfigKind = 'eslint' | 'tsconfig' | 'test-runner' | 'python' | 'coverage' | 'package-json' | 'build';

/** What kind of quality configuration a path is, or null. */
export function configKindOf(path: string): ConfigKind | null {
  return configKind(path);
}

function classifyConfig(path: string): ConfigKind | null {
  const name = path.split('/').pop() ?? path;
  if (/^\.eslintrc(\.[a-z]+)?$/.test(name) || /^eslint\.config\.[cm]?[jt]s$/.test(name)) return 'eslint';
  if (/^tsconfig(\..+)?\.json$/.test(name) || name === 'jsconfig.json') return 'tsconfig';
  if (/^(jest|vitest|vite|karma|playwright|cypress)\.config\.[cm]?[jt]s(on)?$/.test(name) || name === '.mocharc.json' || name === '.mocharc.yml') {
    return 'test-runner';
  }
  if (['pyproject.toml', 'setup.cfg', 'pytest.ini', 'tox.ini', 'mypy.ini', '.flake8', 'ruff.toml', '.ruff.toml'].includes(name)) {
    return 'python';
  }
  if (['.nycrc', '.nycrc.json', '.nycrc.yml', '.coveragerc', 'codecov.yml', '.codecov.yml', '.c8rc', '.c8rc.json'].includes(name)) {
    return 'coverage';
  }
  if (name === 'package.json') return 'package-json';
  if (['Makefile', 'Cargo.toml', 'go.mod', 'build.gradle', 'build.gradle.kts', 'pom.xml', '.golangci.yml', 'clippy.toml', 'biome.json'].includes(name)) {
    return 'build';
  }
  return null;
}
