/**
 * JUnit XML (pytest `--junitxml`, vitest `--reporter=junit`, node:test
 * `--test-reporter=junit`) → per-test results.
 */
import { parseXml, type XmlElement } from './xml-elements.js';
import { addTest, type ParsedReport, type TestStatus } from './test-results.js';

export interface JunitOptions {
  reporter: string;
  /**
   * The outermost `<testsuite>` only wraps the run or a file (pytest's "pytest", vitest's file name, both also in
   * `classname`), so it is left out of ids; node:test's suites are `describe` blocks and stay in.
   */
  outerSuiteIsWrapper: boolean;
}

function statusOf(testcase: XmlElement): TestStatus {
  const names = new Set(testcase.children.map((child) => child.name));
  if (names.has('error')) return 'errored';
  if (names.has('failure')) return 'failed';
  if (names.has('skipped')) return 'skipped';
  return 'passed';
}

/**
 * Reads a JUnit document. Test ids are `classname::suite > … > name`.
 *
 * @example
 * ```ts
 * parseJunit('<testsuites><testsuite name="pytest"><testcase classname="test_a" name="test_ok"/></testsuite></testsuites>',
 *   { reporter: 'pytest junit', outerSuiteIsWrapper: true });
 * // → { ok: true, value: { reporter: 'pytest junit', collected: 1, tests: { 'test_a::test_ok': 'passed' } } }
 * ```
 */
export function parseJunit(text: string, options: JunitOptions): ParsedReport {
  const parsed = parseXml(text);
  if (!parsed.ok) return { ok: false, reason: `${options.reporter}: ${parsed.reason}` };
  if (parsed.root.name !== 'testsuites' && parsed.root.name !== 'testsuite') {
    return { ok: false, reason: `${options.reporter}: the root element is <${parsed.root.name}>, not <testsuites> or <testsuite>` };
  }
  const tests: Record<string, TestStatus> = {};
  let collected = 0;
  const walk = (element: XmlElement, suites: string[], suiteDepth: number) => {
    for (const child of element.children) {
      if (child.name === 'testsuite') {
        const keep = !(options.outerSuiteIsWrapper && suiteDepth === 0);
        walk(child, keep && child.attributes.name ? [...suites, child.attributes.name] : suites, suiteDepth + 1);
      } else if (child.name === 'testcase') {
        collected += 1;
        const name = [...suites, child.attributes.name ?? '(unnamed)'].join(' > ');
        const classname = child.attributes.classname ?? '';
        addTest(tests, classname ? `${classname}::${name}` : name, statusOf(child));
      }
    }
  };
  if (parsed.root.name === 'testsuite') walk({ name: 'testsuites', attributes: {}, children: [parsed.root] }, [], 0);
  else walk(parsed.root, [], 0);
  return { ok: true, value: { reporter: options.reporter, collected, tests } };
}
