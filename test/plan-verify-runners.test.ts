/**
 * `plan` and `doctor` show, per verification command, the test runner it drives and the reporter the verifier
 * adds (per-test evidence), or that its exit code alone decides — read from the project's own files.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import type { DoctorReport } from '../src/use-cases/doctor.js';
import { describeVerifyRunners } from '../src/project/detect-test-runners.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

async function cli(cwd: string, args: string[]): Promise<string> {
  let out = '';
  await main(args, { cwd, env: { HOME: process.env['HOME'] ?? '/tmp', PATH: process.env['PATH'] ?? '', NO_COLOR: '1' }, isTTY: false, stdout: (chunk) => (out += chunk), stderr: () => {} });
  return out;
}

describe('plan and doctor name the runner and reporter of each verification command', () => {
  it('node --test behind npm test is per test; a lint script is exit code only', async () => {
    const root = await makeRepo({
      'LOOP.md': '---\nloop-runtime:\n  level: L2\n  backend: mock\n---\n| Daily Triage | 1d |\n',
      'package.json': JSON.stringify({ scripts: { test: 'node --test', lint: 'eslint .' } }),
      'package-lock.json': '{}',
    });
    const plan = await cli(root, ['plan', 'daily-triage']);
    expect(plan).toContain('npm test → node-test, per test (node --test junit via NODE_OPTIONS)');
    expect(plan).toContain('npm run lint → exit code only (no test runner: the exit code decides)');
    const doctor = cliJson(await cli(root, ['doctor', '--json'])) as DoctorReport;
    expect(doctor.loops[0]?.checks.find((check) => check.check === 'tests')).toMatchObject({ ok: true, required: false, detail: expect.stringContaining('npm test → node-test, per test') });
  });

  it('pytest through the in-repo interpreter, go test, cargo test; vitest in a compound script says why it cannot', async () => {
    const root = await makeRepo({ 'package.json': JSON.stringify({ scripts: { test: 'vitest run && eslint .' } }) });
    expect(await describeVerifyRunners(root, ['.venv/bin/python -m pytest -q', 'go test ./...', 'cargo test', 'npm test'])).toEqual([
      { command: '.venv/bin/python -m pytest -q', runner: 'pytest', reporter: 'pytest junit via PYTEST_ADDOPTS' },
      { command: 'go test ./...', runner: 'go-test', reporter: 'go test -json via GOFLAGS' },
      { command: 'cargo test', runner: 'cargo-test', reporter: 'cargo libtest output' },
      { command: 'npm test', runner: 'vitest', reporter: null, why: expect.stringContaining('compound command or script') },
    ]);
  });
});
