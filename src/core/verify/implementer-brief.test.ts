import { describe, expect, it } from 'vitest';
import type { CommandEvidence } from '../ports/index.js';
import { BRIEF_OUTPUT_CHARS, BRIEF_TEST_IDS, implementerBrief } from './implementer-brief.js';

const evidence = (command: string, exitCode: number, output: string, tests?: CommandEvidence['tests']): CommandEvidence => ({ command, exitCode, output, signal: null, timedOut: false, durationMs: 1, finishedAt: 0, ...(tests ? { tests } : {}) });

describe('implementerBrief', () => {
  it('names each command with its runner (through the package script), lists only failing commands with their failing test ids', () => {
    const brief = implementerBrief(
      [{ command: 'npm test', timeoutMs: 1 }, { command: 'npm run lint', timeoutMs: 1 }, { command: 'go test ./...', timeoutMs: 1 }],
      [
        evidence('npm test', 1, 'FAIL adds', { source: 'report', runner: 'vitest', reporter: 'junit', collected: 3, tests: { 'a::adds': 'failed', 'a::subs': 'passed', 'b::x': 'errored' } }),
        evidence('npm run lint', 0, 'clean'),
        evidence('go test ./...', 0, 'ok'),
      ],
      { test: 'vitest run', lint: 'eslint .' },
    );
    expect(brief.commands).toEqual([
      { command: 'npm test', runner: 'vitest', runs: 'vitest run' },
      { command: 'npm run lint', runner: null },
      { command: 'go test ./...', runner: 'go-test' },
    ]);
    expect(brief.baseFailing).toEqual([{ command: 'npm test', exitCode: 1, tests: ['a::adds', 'b::x'], output: 'FAIL adds' }]);
  });

  it('caps the output to its tail and the ids to a count', () => {
    const tests = Object.fromEntries(Array.from({ length: BRIEF_TEST_IDS + 7 }, (_, index) => [`t::${String(index).padStart(3, '0')}`, 'failed' as const]));
    const brief = implementerBrief([{ command: 'pytest', timeoutMs: 1 }], [evidence('pytest', 1, `${'x'.repeat(10_000)}END`, { source: 'report', runner: 'pytest', reporter: 'junit', collected: 57, tests })], null);
    const failing = brief.baseFailing[0]!;
    expect(failing.output.endsWith('END')).toBe(true);
    expect(failing.output.length).toBeLessThan(BRIEF_OUTPUT_CHARS + 100);
    expect(failing.output).toContain('earlier characters cut');
    expect(failing.tests).toHaveLength(BRIEF_TEST_IDS + 1);
    expect(failing.tests.at(-1)).toBe('… and 7 more');
  });
});
