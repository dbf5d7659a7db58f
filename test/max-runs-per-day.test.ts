/**
 * loop-budget.md's "Max runs/day" is enforced from the run log (UTC day),
 * before any model call, and `plan` shows it because it is enforced.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MockBackend } from '../backends/mock/index.js';
import { main } from '../src/cli/main.js';
import { openRuntime } from '../src/composition/runtime.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const BUDGET = (runs: string) => `# Loop Budget — demo

## Daily limits

| Loop | Max runs/day | Max tokens/day |
|------|--------------|----------------|
| Daily Triage | ${runs} | 100,000 |
`;
const LOOP_MD = '---\nloop-runtime:\n  backend: mock\n  loops:\n    daily-triage: {}\n---\n# Loops\n';

async function planText(root: string): Promise<string> {
  let stdout = '';
  await main(['plan', 'daily-triage'], { cwd: root, env: { ...process.env, NO_COLOR: '1' }, isTTY: false, stdout: (text) => (stdout += text), stderr: () => undefined });
  return stdout;
}

describe('Max runs/day from loop-budget.md', () => {
  it('the second real tick of the UTC day halts (exit 2) with no model call; the next UTC day runs again; plan shows the limit', async () => {
    const root = await makeRepo({ 'README.md': '# demo\n', 'LOOP.md': LOOP_MD, 'loop-budget.md': BUDGET('1') });
    expect(await planText(root)).toMatch(/runs\/day {4}at most 1 \(loop-budget\.md:7 \(Daily Triage\)\)/);
    const clock = new FixedClock('2026-05-01T23:00:00Z', 0);
    const backend = new MockBackend();
    const opened = await openRuntime({ cwd: root, env: process.env, clock, backend });
    if (!opened.ok) throw new Error('config');
    const run = async () => {
      const result = await opened.runtime.run('daily-triage', { level: 'L1' });
      if (!result.ok) throw new Error('config');
      return result.value;
    };
    expect((await run()).ticks[0]!.kind).toBe('report');
    const calls = backend.calls.length;
    clock.advance(30 * 60_000);
    const second = await run();
    expect(second.ticks[0]).toMatchObject({ kind: 'halted', reason: 'max-runs-per-day' });
    expect(second.exitCode).toBe(2);
    expect(backend.calls).toHaveLength(calls);
    clock.advance(60 * 60_000); // 00:30 UTC the next day
    expect((await run()).ticks[0]!.kind).toBe('report');
  });

  it('the twin: a loop-budget.md row with no runs limit is not enforced, and plan does not show one', async () => {
    const root = await makeRepo({ 'README.md': '# demo\n', 'LOOP.md': LOOP_MD, 'loop-budget.md': BUDGET('—') });
    expect(await planText(root)).not.toContain('runs/day');
  });
});
