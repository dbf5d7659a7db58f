/**
 * `loop-runtime ci summary` in a real repository: after the run's table, the
 * GitHub job summary gets each loop's metrics line — acceptance, revert rate,
 * tokens and cost per merged change — read from the run log, the spend
 * journal and outcomes.jsonl exactly as `metrics` reads them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { cleanupTempDirs, makeRepo } from '../git-fixtures.js';
import { METRICS_LOOP_MD, seedMetricsHistory } from '../metrics-fixtures.js';

afterAll(cleanupTempDirs);

async function summarize(root: string, output: unknown, args: string[] = []) {
  await writeFile(join(root, 'result.json'), JSON.stringify(output));
  const summaryFile = join(root, 'step-summary.md');
  await writeFile(summaryFile, '');
  let stdout = '';
  const code = await main(['ci', 'summary', 'result.json', '--exit-code', '0', ...args], { cwd: root, env: { PATH: process.env.PATH, GITHUB_STEP_SUMMARY: summaryFile, NO_COLOR: '1' }, isTTY: false, stdout: (text) => void (stdout += text), stderr: () => {} });
  return { code, stdout, markdown: await readFile(summaryFile, 'utf8') };
}

describe('ci summary with metrics', () => {
  it("adds the run's loops' acceptance, revert rate, tokens and cost per merged change to the job summary", async () => {
    const root = await makeRepo({ 'LOOP.md': METRICS_LOOP_MD });
    await seedMetricsHistory(root);
    const run = { pattern: { id: 'ci-sweeper' }, ticks: [{ kind: 'noop', tickId: 't', patternId: 'ci-sweeper', tokens: 0, summary: 'nothing to do' }], exitCode: 0 };

    const summary = await summarize(root, run, ['--since', '2026-11-01']);
    expect(summary.code).toBe(0);
    expect(summary.markdown).toContain('| ci-sweeper | noop | 0 | nothing to do |');
    expect(summary.markdown).toContain('#### Loop metrics since 2026-11-01');
    // 1 of 3 merged and kept; 1 reverted of 2 merged; 3,000 tokens and $1.50 for the one accepted change.
    expect(summary.markdown).toContain('| ci-sweeper | L2 | 33% (1/3) | 50% | 3,000 | $1.50 |');

    // A loop the run did not touch gets no line; a bad window is a usage error.
    const other = await summarize(root, { pattern: { id: 'daily-triage' }, ticks: [{ kind: 'noop', tokens: 0 }], exitCode: 0 }, ['--since', '2026-11-01']);
    expect(other.markdown).not.toContain('| ci-sweeper | L2');
    expect((await summarize(root, run, ['--since', 'fortnight'])).code).toBe(3);
  });
});
