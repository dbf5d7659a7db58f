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
import { cleanupTempDirs, makeRepo, writeFiles } from '../git-fixtures.js';

afterAll(cleanupTempDirs);

const LOOP_MD = '---\nloop-runtime:\n  loops:\n    ci-sweeper:\n      level: L2\n---\n# Loops\n';
const proposal = (name: string) => ({
  type: 'proposal', at: '2026-11-18T10:00:00.000Z', pattern: 'ci-sweeper', tickId: `tick-${name}`, itemKey: name, commit: name.padEnd(40, '0'),
  branch: `loop/ci-sweeper/${name}`, base: 'main', delivery: 'local', level: 'L2', tokens: 1000, source: 'tick',
});
const observation = (name: string, state: string) => ({ type: 'observation', at: '2026-11-19T10:00:00.000Z', pattern: 'ci-sweeper', commit: name.padEnd(40, '0'), state, via: 'git' });

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
    const root = await makeRepo({ 'LOOP.md': LOOP_MD });
    const ticks = ['aaaaaaa', 'bbbbbbb', 'ccccccc'];
    const runLog = ['# Loop Run Log', '', '<!-- Loop appends below this line -->'];
    ticks.forEach((name, index) =>
      runLog.push(JSON.stringify({ run_id: `2026-11-18T0${index}:00:00Z`, pattern: 'ci-sweeper', duration_s: 1, items_found: 1, actions_taken: 1, escalations: 0, tokens_estimate: 1000, outcome: 'fix-proposed', tick_id: `tick-${name}`, level: 'L2', kind: 'proposed' })),
    );
    await writeFiles(root, {
      'loop-run-log.md': `${runLog.join('\n')}\n`,
      '.loop-runtime/spend.jsonl': `${ticks.map((name) => JSON.stringify({ at: 0, day: '2026-11-18', patternId: 'ci-sweeper', tickId: `tick-${name}`, phase: 'implement', tokens: 1000, costUsd: 0.5 })).join('\n')}\n`,
      '.loop-runtime/outcomes.jsonl': `${[...ticks.map(proposal), observation('aaaaaaa', 'merged'), observation('bbbbbbb', 'reverted'), observation('ccccccc', 'closed')].map((line) => JSON.stringify(line)).join('\n')}\n`,
    });
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
