import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const LOOP_MD = '---\nloop-runtime:\n  backend: mock\n  loops: { daily-triage: {} }\n---\n# Loops\n';

async function dryRun(root: string, terminals: { isTTY: boolean; stderrIsTTY: boolean }, env: Record<string, string> = {}): Promise<string> {
  let stderr = '';
  let now = Date.parse('2026-11-24T10:00:00Z');
  const clock = { now: () => (now += 250) };
  const code = await main(['run', 'daily-triage', '--dry-run', '--level', 'L2'], { cwd: root, env: { ...process.env, NO_COLOR: '1', CI: '', ...env }, ...terminals, clock, stdout: () => {}, stderr: (text) => (stderr += text) });
  expect(code).toBe(0);
  return stderr;
}

describe('progress follows stderr', () => {
  it("draws the running phase live when stderr is a terminal (whatever stdout is), nothing when it is piped, plain lines in CI", async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD });
    const live = await dryRun(root, { isTTY: false, stderrIsTTY: true });
    expect(live).toContain('\r\x1b[Ktriaging');
    expect(live).toContain('\r\x1b[Kimplementing');
    expect(await dryRun(root, { isTTY: true, stderrIsTTY: false })).not.toContain('\r\x1b[K');
    const ci = await dryRun(root, { isTTY: true, stderrIsTTY: true }, { CI: 'true' });
    expect(ci).not.toContain('\r\x1b[K');
    expect(ci).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z implementing$/m);
  });
});
