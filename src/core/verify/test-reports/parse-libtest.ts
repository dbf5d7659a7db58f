/**
 * `cargo test`'s libtest text (stdout and stderr together) → per-test
 * results. Ids carry the test target from cargo's `Running …` / `Doc-tests …`
 * lines (`src/lib.rs::tests::adds`), so a test that moves out of the run
 * (`[lib] test = false`, a runner `--skip`) goes missing rather than passing.
 */
import { addTest, type ParsedReport, type TestStatus } from './test-results.js';

const RUNNING = /^\s*Running (?:unittests )?(\S+)/;
const DOC_TESTS = /^\s*Doc-tests (\S+)/;
const RESULT = /^test (.+?) \.\.\. (ok|FAILED|ignored(?:, .*)?)$/;

/**
 * @example
 * ```ts
 * parseLibtest('     Running unittests src/lib.rs (target/debug/deps/m-1)\nrunning 1 test\ntest tests::adds ... ok\n');
 * // → { ok: true, value: { reporter: 'cargo libtest', collected: 1, tests: { 'src/lib.rs::tests::adds': 'passed' } } }
 * ```
 */
export function parseLibtest(text: string): ParsedReport {
  const tests: Record<string, TestStatus> = {};
  let target = '';
  let runs = 0;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const running = RUNNING.exec(line) ?? DOC_TESTS.exec(line);
    if (running) {
      target = line.includes('Doc-tests') ? `doc-tests ${running[1] ?? ''}` : (running[1] ?? '');
      continue;
    }
    if (/^running \d+ tests?$/.test(line)) runs += 1;
    const result = RESULT.exec(line);
    if (!result) continue;
    const outcome = result[2] ?? '';
    const status: TestStatus = outcome === 'ok' ? 'passed' : outcome === 'FAILED' ? 'failed' : 'skipped';
    // A doc-test is named by its line (`src/lib.rs - add (line 3)`): a fix that adds a line above it must not make
    // it look missing, so the line is dropped (two examples on one item get ` #2`, in order).
    const name = (result[1] ?? '').replace(/ \(line \d+\)$/, '');
    addTest(tests, target ? `${target}::${name}` : name, status);
  }
  if (runs === 0) return { ok: false, reason: 'cargo libtest: no "running N tests" line in the output (did the build fail?)' };
  return { ok: true, value: { reporter: 'cargo libtest', collected: Object.keys(tests).length, tests } };
}
