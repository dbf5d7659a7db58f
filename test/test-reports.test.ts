/**
 * The report parsers on real reporter output, captured from the real runners here (pytest 9.2 --junitxml,
 * vitest 3 --reporter=junit, node 20 --test-reporter=junit with two files, go 1.26 test -json, cargo 1.95
 * test --no-fail-fast), and the per-test rule on the results.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareTestResults, detectTestRunner, instrumentCommand, parseGoTestJson, parseJestJson, parseJunit, parseLibtest, parseXml, testsNamedBy } from '../src/core/verify/index.js';
import type { TestEvidence } from '../src/core/ports/index.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', 'test-reports', name), 'utf8');

describe('report parsers on real runner output', () => {
  it('pytest junit: classname::name, parametrized ids, skip, failure', () => {
    const parsed = parseJunit(fixture('pytest-junit.xml'), { reporter: 'pytest junit', outerSuiteIsWrapper: true });
    expect(parsed).toEqual({
      ok: true,
      value: {
        reporter: 'pytest junit',
        collected: 6,
        tests: { 'test_a::test_ok': 'passed', 'test_a::test_bad': 'failed', 'test_a::test_skip': 'skipped', 'test_a.TestK::test_m': 'passed', 'test_a::test_p[1]': 'passed', 'test_a::test_p[2]': 'passed' },
      },
    });
  });

  it('pytest junit: a collection error is an errored test, not a pass', () => {
    const parsed = parseJunit(fixture('pytest-collection-error.xml'), { reporter: 'pytest junit', outerSuiteIsWrapper: true });
    expect(parsed.ok && parsed.value.tests).toEqual({ test_e: 'errored' });
  });

  it('vitest junit: file::describe > name', () => {
    const parsed = parseJunit(fixture('vitest-junit.xml'), { reporter: 'vitest junit', outerSuiteIsWrapper: true });
    expect(parsed.ok && parsed.value).toEqual({ reporter: 'vitest junit', collected: 4, tests: { 'a.test.js::ok': 'passed', 'a.test.js::bad': 'failed', 'a.test.js::sk': 'skipped', 'a.test.js::grp > inner': 'passed' } });
  });

  it('node --test junit over two files: same names get an ordinal, describe blocks stay in the id', () => {
    const parsed = parseJunit(fixture('node-test-junit.xml'), { reporter: 'node junit', outerSuiteIsWrapper: false });
    expect(parsed.ok && parsed.value.collected).toBe(8);
    expect(parsed.ok && parsed.value.tests).toMatchObject({ 'test::ok one': 'passed', 'test::bad one': 'failed', 'test::skipped': 'skipped', 'test::suite > inner': 'passed', 'test::ok one #2': 'passed', 'test::suite > inner #2': 'passed' });
  });

  it('jest --json: file::describe > title, pending/todo are skipped, a file that failed to run is one errored id', () => {
    const parsed = parseJestJson(fixture('jest.json'), '/repo');
    expect(parsed.ok && parsed.value.tests).toEqual({
      'a.test.js::ok': 'passed',
      'a.test.js::bad': 'failed',
      'a.test.js::sk': 'skipped',
      'a.test.js::later': 'skipped',
      'a.test.js::grp > inner': 'passed',
      'b.test.js': 'errored',
    });
    expect(parseJestJson('{"testResults":', '/repo')).toMatchObject({ ok: false });
  });

  it('go test -json: package::Test and subtests; a package that did not build is one errored id', () => {
    const parsed = parseGoTestJson(fixture('go-test.jsonl'));
    expect(parsed.ok && parsed.value.tests).toEqual({
      'example.com/gm::TestOk': 'passed',
      'example.com/gm::TestBad': 'failed',
      'example.com/gm::TestSkip': 'skipped',
      'example.com/gm::TestSub/one': 'passed',
      'example.com/gm::TestSub/two': 'passed',
      'example.com/gm::TestSub': 'passed',
      'example.com/gm/sub::TestS': 'passed',
    });
    const broken = parseGoTestJson(fixture('go-test-build-failure.jsonl'));
    expect(broken.ok && broken.value.tests).toEqual({ 'example.com/gm/sub::TestS': 'passed', 'example.com/gm::(package did not build or run)': 'errored' });
    expect(parseGoTestJson('ok  \texample.com/gm\t0.01s\n')).toMatchObject({ ok: false });
  });

  it('cargo libtest: target::path, ignored is skipped, every target (lib, integration, doc-tests)', () => {
    const parsed = parseLibtest(fixture('cargo-test.txt'));
    expect(parsed.ok && parsed.value).toEqual({
      reporter: 'cargo libtest',
      collected: 4,
      tests: { 'src/lib.rs::tests::it_works': 'passed', 'src/lib.rs::tests::slow': 'skipped', 'src/lib.rs::tests::broken': 'failed', 'tests/it.rs::integ': 'passed' },
    });
    expect(parseLibtest('error[E0308]: mismatched types\nerror: could not compile `cr`\n')).toMatchObject({ ok: false });
    const doc = (line: number) => `   Doc-tests cr\n\nrunning 2 tests\ntest src/lib.rs - add (line ${line}) ... ok\ntest src/lib.rs - add (line ${line + 6}) ... ok\n`;
    const before = parseLibtest(doc(3));
    expect(before.ok && before.value.tests).toEqual({ 'doc-tests cr::src/lib.rs - add': 'passed', 'doc-tests cr::src/lib.rs - add #2': 'passed' });
    expect(parseLibtest(doc(9))).toEqual(before);
  });

  it('the XML reader refuses what it cannot read (cut short, mismatched, unknown entity) rather than half-reading it', () => {
    const whole = fixture('pytest-junit.xml');
    expect(parseXml(whole.slice(0, whole.length - 30))).toMatchObject({ ok: false });
    expect(parseXml(whole.slice(0, whole.indexOf('</testsuite>')))).toMatchObject({ ok: false, reason: expect.stringContaining('never closed') });
    expect(parseXml('<a><b></a>')).toMatchObject({ ok: false, reason: expect.stringContaining('</a> closes <b>') });
    expect(parseXml('<a x="&bogus;"/>')).toMatchObject({ ok: false });
    expect(parseXml('<a x="&lt;&#65;&#x42;"/>')).toEqual({ ok: true, root: { name: 'a', attributes: { x: '<AB' }, children: [] } });
    expect(parseJunit('<html/>', { reporter: 'r', outerSuiteIsWrapper: true })).toMatchObject({ ok: false });
  });
});

describe('runner detection and reporters', () => {
  it('detects the runner from the command or the base package.json script', () => {
    expect(detectTestRunner('npm test', { test: 'node --test' })).toMatchObject({ runner: 'node-test', script: { manager: 'npm', name: 'test' } });
    expect(detectTestRunner('pnpm run unit', { unit: 'vitest run' })).toMatchObject({ runner: 'vitest' });
    expect(detectTestRunner('.venv/bin/python -m pytest -q', null)).toMatchObject({ runner: 'pytest' });
    expect(detectTestRunner('go test ./...', null)).toMatchObject({ runner: 'go-test' });
    expect(detectTestRunner('cargo test --offline', null)).toMatchObject({ runner: 'cargo-test' });
    expect(detectTestRunner('npm run lint', { lint: 'eslint .' })).toBeNull();
    expect(detectTestRunner('npm test', null)).toBeNull();
    expect(detectTestRunner('bun test', { test: 'vitest run' })).toBeNull();
    expect(detectTestRunner('bun run test', { test: 'vitest run' })).toMatchObject({ runner: 'vitest' });
    expect(detectTestRunner('ruff check .', null)).toBeNull();
  });

  it('adds reporters by environment or appended arguments, never by editing files; refuses to append into a compound script', () => {
    const pytest = instrumentCommand('pytest -q', { runner: 'pytest', text: 'pytest -q' });
    expect(pytest.ok && pytest.value.shell).toBe('export PYTEST_ADDOPTS="${PYTEST_ADDOPTS:+$PYTEST_ADDOPTS }--junitxml=$LOOP_RUNTIME_REPORT_DIR/pytest-junit.xml -rA"; export PYTHONDONTWRITEBYTECODE=1; pytest -q');
    const vitest = instrumentCommand('npm test', { runner: 'vitest', text: 'vitest run', script: { manager: 'npm', name: 'test' } });
    expect(vitest.ok && vitest.value.shell).toBe('npm test -- --reporter=default --reporter=junit --outputFile.junit="$LOOP_RUNTIME_REPORT_DIR/vitest-junit.xml"');
    expect(instrumentCommand('npm test', { runner: 'vitest', text: 'vitest run && eslint .', script: { manager: 'npm', name: 'test' } })).toMatchObject({ ok: false });
    const jest = instrumentCommand('npm test', { runner: 'jest', text: 'jest --ci', script: { manager: 'npm', name: 'test' } });
    expect(jest.ok && jest.value.shell).toBe('npm test -- --json --outputFile="$LOOP_RUNTIME_REPORT_DIR/jest.json"');
    expect(detectTestRunner('yarn test', { test: 'jest --ci' })).toMatchObject({ runner: 'jest' });
    const cargo = instrumentCommand('cargo test', { runner: 'cargo-test', text: 'cargo test' });
    expect(cargo.ok && cargo.value.shell).toContain('cargo test --no-fail-fast 2>&1');
    const given = instrumentCommand('cargo test --no-fail-fast', { runner: 'cargo-test', text: 'cargo test --no-fail-fast' });
    expect(given.ok && given.value.shell).toContain('{ cargo test --no-fail-fast 2>&1;');
    expect(instrumentCommand('npm test', { runner: 'node-test', text: 'node --test --test-reporter=dot', script: { manager: 'npm', name: 'test' } })).toMatchObject({ ok: false, why: expect.stringContaining('its own --test-reporter') });
  });
});

const report = (tests: Record<string, 'passed' | 'failed' | 'skipped' | 'errored'>, collected = Object.keys(tests).length): Extract<TestEvidence, { source: 'report' }> => ({
  source: 'report',
  runner: 'pytest',
  reporter: 'pytest junit',
  collected,
  tests,
});

describe('the per-test rule', () => {
  const base = report({ 't::parse_quotes': 'failed', 't::parse_dates': 'failed', 't::adds': 'passed', 't::subtracts': 'passed' });
  const options = { afterExitFailed: true, itemText: '' };

  it('an honest fix of one of two unrelated red tests passes; the other is reported, not blocking', () => {
    const after = report({ 't::parse_quotes': 'passed', 't::parse_dates': 'failed', 't::adds': 'passed', 't::subtracts': 'passed' });
    expect(compareTestResults('pytest', base, after, options)).toEqual({ rejects: [], fixed: ['t::parse_quotes'], stillFailing: ['t::parse_dates'] });
    // The twin: the item names the other test, so fixing this one is not enough.
    expect(compareTestResults('pytest', base, after, { ...options, itemText: 'CI: test parse_dates fails' }).rejects).toEqual([
      '`pytest`: the item is about `t::parse_dates`, which failed at the base and still does not pass',
    ]);
  });

  it('rejects a change that fixes nothing, and one that skips, deselects or deletes a passing test — naming it', () => {
    expect(compareTestResults('pytest', base, base, options).rejects).toEqual(['`pytest`: none of the 2 test(s) that failed at the base passes now (`t::parse_quotes`, `t::parse_dates`)']);
    const skipped = report({ 't::parse_quotes': 'passed', 't::parse_dates': 'failed', 't::adds': 'skipped', 't::subtracts': 'passed' });
    expect(compareTestResults('pytest', base, skipped, options).rejects).toEqual(['`pytest`: 1 test(s) passed at the base and are skipped now: `t::adds`']);
    const deselected = report({ 't::parse_quotes': 'passed', 't::parse_dates': 'failed', 't::adds': 'passed' });
    expect(compareTestResults('pytest', base, deselected, options).rejects).toEqual([
      '`pytest`: 1 test(s) passed at the base and are missing now (not collected, deselected or not run): `t::subtracts`',
      '`pytest`: 4 test(s) were collected at the base and only 3 now',
    ]);
  });

  it('rejects a failing test that vanishes instead of passing, a new failing test, and a red exit with every test green', () => {
    const vanished = report({ 't::parse_quotes': 'passed', 't::adds': 'passed', 't::subtracts': 'passed', 't::new': 'passed' });
    expect(compareTestResults('pytest', base, vanished, { ...options, afterExitFailed: false }).rejects).toEqual([
      '`pytest`: 1 test(s) failed at the base and are skipped or missing now instead of passing: `t::parse_dates`',
    ]);
    const newFailing = report({ 't::parse_quotes': 'passed', 't::parse_dates': 'passed', 't::adds': 'passed', 't::subtracts': 'passed', 't::new': 'failed' });
    expect(compareTestResults('pytest', base, newFailing, options).rejects).toEqual(['`pytest`: 1 new test(s) fail: `t::new`']);
    const green = report({ 't::parse_quotes': 'passed', 't::parse_dates': 'passed', 't::adds': 'passed', 't::subtracts': 'passed' });
    expect(compareTestResults('pytest', base, green, options).rejects).toEqual(['`pytest` failed although every test it reported passed: something besides the tests failed']);
    expect(compareTestResults('pytest', base, green, { ...options, afterExitFailed: false }).rejects).toEqual([]);
  });

  it('a module that did not collect (pytest) or a package that did not build (go) at the base is fixed when its tests now run and pass — not when it is just gone', () => {
    const pyBase = report({ 'tests.test_e': 'errored', 'tests.test_ok::test_ok': 'passed' });
    const pyFixed = report({ 'tests.test_e::test_x': 'passed', 'tests.test_ok::test_ok': 'passed' });
    expect(compareTestResults('pytest', pyBase, pyFixed, { afterExitFailed: false, itemText: '' })).toEqual({ rejects: [], fixed: ['tests.test_e'], stillFailing: [] });
    const goBase = report({ 'example.com/m::(package did not build or run)': 'errored', 'example.com/m/sub::TestS': 'passed' });
    const goFixed = report({ 'example.com/m::TestAdd': 'passed', 'example.com/m/sub::TestS': 'passed' });
    expect(compareTestResults('go', goBase, goFixed, { afterExitFailed: false, itemText: '' }).rejects).toEqual([]);
    // The twin: the erroring module is simply gone (deleted), nothing of it runs.
    expect(compareTestResults('pytest', pyBase, report({ 'tests.test_ok::test_ok': 'passed' }), { afterExitFailed: false, itemText: '' }).rejects).toContain(
      '`pytest`: 1 test(s) failed at the base and are skipped or missing now instead of passing: `tests.test_e`',
    );
  });

  it('names tests by their last name as a whole word', () => {
    expect(testsNamedBy('FAILED tests/test_a.py::test_parse_dates - assert', ['tests/test_a.py::test_parse_dates', 't::test_parse'])).toEqual(['tests/test_a.py::test_parse_dates']);
  });
});
