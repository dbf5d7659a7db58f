/**
 * `go test -json` (test2json events, one JSON object a line) → per-test
 * results. Lines that are not JSON (a wrapper's own output) are ignored; a
 * package that failed without running a test (a build failure) is one
 * errored id, so the tests it held count as missing, not as passing.
 */
import { addTest, worse, type ParsedReport, type TestStatus } from './test-results.js';

interface GoEvent {
  Action?: string;
  Package?: string;
  Test?: string;
}

const ENDINGS: Record<string, TestStatus> = { pass: 'passed', fail: 'failed', skip: 'skipped' };

/**
 * @example
 * ```ts
 * parseGoTestJson('{"Action":"pass","Package":"example.com/m","Test":"TestAdd"}\n');
 * // → { ok: true, value: { reporter: 'go test -json', collected: 1, tests: { 'example.com/m::TestAdd': 'passed' } } }
 * ```
 */
export function parseGoTestJson(text: string): ParsedReport {
  const byId = new Map<string, TestStatus>();
  const packagesWithTests = new Set<string>();
  const failedPackages = new Set<string>();
  let events = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let event: GoEvent;
    try {
      event = JSON.parse(line) as GoEvent;
    } catch {
      continue;
    }
    if (typeof event.Action !== 'string' || typeof event.Package !== 'string') continue;
    events += 1;
    const ending = ENDINGS[event.Action];
    if (!ending) continue;
    if (typeof event.Test === 'string') {
      const id = `${event.Package}::${event.Test}`;
      const previous = byId.get(id);
      byId.set(id, previous ? worse(previous, ending) : ending);
      packagesWithTests.add(event.Package);
    } else if (event.Action === 'fail') {
      failedPackages.add(event.Package);
    }
  }
  if (events === 0) return { ok: false, reason: 'go test -json: no test2json event in the output (was -json in effect?)' };
  const tests: Record<string, TestStatus> = {};
  for (const [id, status] of byId) addTest(tests, id, status);
  for (const failed of failedPackages) if (!packagesWithTests.has(failed)) addTest(tests, `${failed}::(package did not build or run)`, 'errored');
  return { ok: true, value: { reporter: 'go test -json', collected: Object.keys(tests).length, tests } };
}
