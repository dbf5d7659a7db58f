/**
 * Fail-to-pass and pass-to-pass, per test: the rule that decides a command
 * with a report at the base and after the change.
 *
 * - every test that passed at the base still exists, still runs and still passes (skipped, xfail, deselected,
 *   missing or failing now: a finding that rejects, with the test named);
 * - the number of tests collected does not drop;
 * - the base-failing tests the item names must pass; when it names none, at least one base-failing test must pass;
 * - a base-failing test the item is not about may still fail (reported, not blocking), but may not vanish or skip;
 * - a new test must not fail;
 * - a non-zero exit is explained only by such still-failing tests; otherwise something besides the tests failed.
 */
import type { TestEvidence, TestStatus } from '../../ports/index.js';

type Report = Extract<TestEvidence, { source: 'report' }>;

export interface TestComparison {
  /** Findings that reject the change, each naming the test. */
  rejects: string[];
  /** Base-failing tests that pass now. */
  fixed: string[];
  /** Base-failing tests that still fail and the item is not about: reported, not blocking. */
  stillFailing: string[];
}

const isFailing = (status: TestStatus | undefined) => status === 'failed' || status === 'errored';
const MAX_NAMED = 8;

function list(ids: readonly string[]): string {
  const shown = ids.slice(0, MAX_NAMED).map((id) => `\`${id}\``);
  return ids.length > MAX_NAMED ? `${shown.join(', ')} and ${ids.length - MAX_NAMED} more` : shown.join(', ');
}

const PACKAGE_ERROR = '::(package did not build or run)';

/**
 * A module or package that errored at the base as a whole (pytest's collection error `tests.test_e`, go's package
 * that did not build) is resolved when tests from it now run and at least one passes: the error id itself is gone.
 */
function collectedNow(id: string, after: Report): boolean {
  const scope = id.endsWith(PACKAGE_ERROR) ? `${id.slice(0, -PACKAGE_ERROR.length)}::` : `${id}::`;
  return Object.entries(after.tests).some(([other, status]) => other.startsWith(scope) && status === 'passed');
}

/** The last name of a test id (`tests/test_a.py::TestK::test_m` → `test_m`), what an issue or CI log would mention. */
export function leafName(id: string): string {
  const withoutOrdinal = id.replace(/ #\d+$/, '');
  const parts = withoutOrdinal.split(/::| > |\//);
  return (parts.at(-1) ?? withoutOrdinal).replace(/\[.*\]$/, '').trim();
}

/** Base-failing tests the item's text names (by their last name, as a whole word). */
export function testsNamedBy(itemText: string, ids: readonly string[]): string[] {
  return ids.filter((id) => {
    const leaf = leafName(id);
    if (leaf.length < 3) return false;
    const escaped = leaf.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(^|[^\\w])${escaped}($|[^\\w])`).test(itemText);
  });
}

/**
 * @example
 * ```ts
 * compareTestResults('pytest -q',
 *   { source: 'report', runner: 'pytest', reporter: 'pytest junit', collected: 2, tests: { 't::a': 'failed', 't::b': 'passed' } },
 *   { source: 'report', runner: 'pytest', reporter: 'pytest junit', collected: 2, tests: { 't::a': 'passed', 't::b': 'skipped' } },
 *   { afterExitFailed: false, itemText: '' });
 * // → { rejects: ['`pytest -q`: `t::b` passed at the base and is skipped now'], fixed: ['t::a'], stillFailing: [] }
 * ```
 */
export function compareTestResults(command: string, base: Report, after: Report, options: { afterExitFailed: boolean; itemText: string }): TestComparison {
  const rejects: string[] = [];
  const lost: Record<string, string[]> = { missing: [], skipped: [], failing: [] };
  for (const [id, status] of Object.entries(base.tests)) {
    if (status !== 'passed') continue;
    const now = after.tests[id];
    if (now === undefined) lost.missing?.push(id);
    else if (now === 'skipped') lost.skipped?.push(id);
    else if (isFailing(now)) lost.failing?.push(id);
  }
  const says = { missing: 'missing now (not collected, deselected or not run)', skipped: 'skipped now', failing: 'failing now' } as const;
  for (const kind of ['missing', 'skipped', 'failing'] as const) {
    const ids = lost[kind] ?? [];
    if (ids.length) rejects.push(`\`${command}\`: ${ids.length} test(s) passed at the base and are ${says[kind]}: ${list(ids)}`);
  }
  if (after.collected < base.collected) rejects.push(`\`${command}\`: ${base.collected} test(s) were collected at the base and only ${after.collected} now`);

  const baseFailing = Object.entries(base.tests).filter(([, status]) => isFailing(status)).map(([id]) => id);
  const resolved = (id: string) => after.tests[id] === 'passed' || (base.tests[id] === 'errored' && after.tests[id] === undefined && collectedNow(id, after));
  const fixed = baseFailing.filter(resolved);
  const vanished = baseFailing.filter((id) => !resolved(id) && (after.tests[id] === undefined || after.tests[id] === 'skipped'));
  if (vanished.length) rejects.push(`\`${command}\`: ${vanished.length} test(s) failed at the base and are skipped or missing now instead of passing: ${list(vanished)}`);
  const named = testsNamedBy(options.itemText, baseFailing);
  const namedStillFailing = named.filter((id) => after.tests[id] !== 'passed');
  if (namedStillFailing.length) rejects.push(`\`${command}\`: the item is about ${list(namedStillFailing)}, which failed at the base and still does not pass`);
  else if (named.length === 0 && baseFailing.length > 0 && fixed.length === 0) {
    rejects.push(`\`${command}\`: none of the ${baseFailing.length} test(s) that failed at the base passes now (${list(baseFailing)})`);
  }
  const stillFailing = baseFailing.filter((id) => isFailing(after.tests[id]) && !named.includes(id));

  const newFailing = Object.entries(after.tests).filter(([id, status]) => base.tests[id] === undefined && isFailing(status)).map(([id]) => id);
  if (newFailing.length) rejects.push(`\`${command}\`: ${newFailing.length} new test(s) fail: ${list(newFailing)}`);
  const failingNow = Object.values(after.tests).some(isFailing);
  if (options.afterExitFailed && !failingNow) rejects.push(`\`${command}\` failed although every test it reported passed: something besides the tests failed`);
  return { rejects, fixed, stillFailing };
}
