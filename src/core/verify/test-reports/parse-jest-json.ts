/**
 * jest's `--json` report → per-test results. Ids are `file::describe > … >
 * title`, the file relative to the directory the command ran in; a test file
 * that failed to run at all (no assertion results) is one errored id.
 */
import { addTest, type ParsedReport, type TestStatus } from './test-results.js';

interface JestAssertion {
  ancestorTitles?: unknown;
  title?: unknown;
  status?: unknown;
}
interface JestFile {
  name?: unknown;
  status?: unknown;
  assertionResults?: unknown;
}

const STATUSES: Record<string, TestStatus> = { passed: 'passed', failed: 'failed', pending: 'skipped', skipped: 'skipped', todo: 'skipped', disabled: 'skipped', focused: 'passed' };

/**
 * @example
 * ```ts
 * parseJestJson('{"testResults":[{"name":"/w/a.test.js","status":"passed","assertionResults":[{"ancestorTitles":[],"title":"ok","status":"passed"}]}]}', '/w');
 * // → { ok: true, value: { reporter: 'jest json', collected: 1, tests: { 'a.test.js::ok': 'passed' } } }
 * ```
 */
export function parseJestJson(text: string, cwd: string): ParsedReport {
  let report: { testResults?: unknown };
  try {
    report = JSON.parse(text) as { testResults?: unknown };
  } catch {
    return { ok: false, reason: 'jest json: the report is not JSON (cut short?)' };
  }
  if (!Array.isArray(report.testResults)) return { ok: false, reason: 'jest json: no testResults array' };
  const tests: Record<string, TestStatus> = {};
  const prefix = cwd.endsWith('/') ? cwd : `${cwd}/`;
  for (const file of report.testResults as JestFile[]) {
    const name = typeof file.name === 'string' ? (file.name.startsWith(prefix) ? file.name.slice(prefix.length) : file.name) : '(unnamed file)';
    const assertions = Array.isArray(file.assertionResults) ? (file.assertionResults as JestAssertion[]) : [];
    if (assertions.length === 0 && file.status === 'failed') addTest(tests, name, 'errored');
    for (const assertion of assertions) {
      const titles = [...(Array.isArray(assertion.ancestorTitles) ? assertion.ancestorTitles.map(String) : []), String(assertion.title ?? '(untitled)')];
      addTest(tests, `${name}::${titles.join(' > ')}`, STATUSES[String(assertion.status)] ?? 'errored');
    }
  }
  return { ok: true, value: { reporter: 'jest json', collected: Object.keys(tests).length, tests } };
}
