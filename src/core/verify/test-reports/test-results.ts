/**
 * Per-test results: what a test runner's machine-readable report says ran,
 * keyed by a stable test id, in one shape for every runner.
 */
import type { TestStatus } from '../../ports/index.js';

export type { TestStatus } from '../../ports/index.js';

/** One report, parsed: every test id the runner collected and how it ended. */
export interface TestResults {
  /** Which reporter produced it, e.g. "pytest junit", "go test -json". */
  reporter: string;
  /** How many tests the report lists (collected and reported, whatever the outcome). */
  collected: number;
  tests: Record<string, TestStatus>;
}

/** A parse that failed is data: the reason names the format and what was wrong. */
export type ParsedReport = { ok: true; value: TestResults } | { ok: false; reason: string };

/**
 * Adds a test under a unique id: a second test with the same id (two files with the same test name under
 * node:test, whose junit output carries no file) becomes `id #2`, in report order, which is stable run to run.
 */
export function addTest(tests: Record<string, TestStatus>, id: string, status: TestStatus): void {
  let unique = id;
  for (let ordinal = 2; Object.hasOwn(tests, unique); ordinal++) unique = `${id} #${ordinal}`;
  tests[unique] = status;
}

/** The worse of two outcomes for one id (a test reported twice, e.g. a setup error after a pass). */
export function worse(a: TestStatus, b: TestStatus): TestStatus {
  const rank: Record<TestStatus, number> = { passed: 0, skipped: 1, failed: 2, errored: 3 };
  return rank[a] >= rank[b] ? a : b;
}
