import { describe, expect, it } from 'vitest';
import type { CommandEvidence } from '../ports/index.js';
import { cannotRunAtBase } from './base-runnable.js';

const run = (command: string, exitCode: number, output: string, extra: Partial<CommandEvidence> = {}): CommandEvidence => ({ command, exitCode, output, signal: null, timedOut: false, durationMs: 1, finishedAt: 0, ...extra });

// Outputs as the real tools print them (captured on this machine: dash, bash, pytest 9, go 1.22+, node 20, cargo).
const CARGO_NONE = 'running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored\n\n   Doc-tests textutil\n\nrunning 0 tests\n\ntest result: ok. 0 passed\n';
const CARGO_SOME = 'running 3 tests\ntest tests::adds ... ok\n\ntest result: ok. 3 passed\n\n   Doc-tests textutil\n\nrunning 0 tests\n';

describe('cannotRunAtBase: a command that could not run at the base', () => {
  it.each([
    ['dash: not found', run('pytest -q', 127, 'sh: 1: pytest: not found'), 'command-not-found'],
    ['bash: command not found', run('npx-less-runner', 1, 'bash: vitest: command not found'), 'command-not-found'],
    ['python without pytest', run('python3 -m pytest', 1, '/usr/bin/python3: No module named pytest'), 'command-not-found'],
    ['pytest usage error', run('pytest -q --nope', 4, 'ERROR: usage: pytest [options]\npytest: error: unrecognized arguments: --nope'), 'usage-error'],
    ['npm missing script', run('npm test', 1, 'npm error Missing script: "test"'), 'usage-error'],
    ['pytest collected nothing', run('pytest -q', 5, '\nno tests ran in 0.02s'), 'no-tests-collected'],
    ['node --test with 0 tests (TAP)', run('node --test', 0, '1..0\n# tests 0\n# suites 0\n# pass 0'), 'no-tests-collected'],
    ['node --test with 0 tests (spec)', run('npm test', 0, 'ℹ tests 0\nℹ suites 0', { tests: { source: 'exit-code', runner: 'node-test', why: 'x' } }), 'no-tests-collected'],
    ['go: no test files', run('go test ./...', 0, '?   \texample.com/x\t[no test files]'), 'no-tests-collected'],
    ['cargo: 0 tests', run('cargo test', 0, CARGO_NONE), 'no-tests-collected'],
    ['vitest: no test files', run('npx vitest run', 1, 'No test files found, exiting with code 1'), 'no-tests-collected'],
    ['a report of 0 tests', run('npm test', 0, '', { tests: { source: 'report', runner: 'jest', reporter: 'jest json', collected: 0, tests: {} } }), 'no-tests-collected'],
  ])('%s', (_name, evidence, kind) => {
    const found = cannotRunAtBase(evidence);
    expect(found).toMatchObject({ command: evidence.command, kind });
    expect(found?.message).toContain('To fix:');
  });

  it.each([
    ['a failing suite', run('pytest -q', 1, 'FAILED tests/test_x.py::test_a - assert 1 == 2\n1 failed, 3 passed')],
    ['a test whose output says "not found"', run('pytest -q', 1, 'E   KeyError: user: not found\nFAILED tests/test_x.py::test_a')],
    ['exit 4 from something not pytest', run('make check', 4, 'make: *** [check] Error 4')],
    ['exit 5 from something not pytest', run('make check', 5, '')],
    ['go with one package tested', run('go test ./...', 0, '?   \texample.com/x/cmd\t[no test files]\nok  \texample.com/x\t0.01s')],
    ['cargo with tests (doc-tests 0)', run('cargo test', 0, CARGO_SOME)],
    ['node --test with tests', run('node --test', 1, '# tests 3\n# pass 2\n# fail 1')],
    ['a timeout (says nothing about runnability)', run('pytest -q', null as unknown as number, '', { timedOut: true })],
  ])('the twin — %s: runs', (_name, evidence) => {
    expect(cannotRunAtBase(evidence)).toBeNull();
  });
});
