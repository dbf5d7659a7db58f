/**
 * A loop's history for metrics tests: three proposed ticks at 1,000 tokens
 * and $0.50 each (run log + spend journal) and their fates in outcomes.jsonl —
 * one merged, one reverted, one closed. Acceptance 1/3, revert rate 1/2,
 * 3,000 tokens and $1.50 per merged change.
 */
import { writeFiles } from './git-fixtures.js';

export const METRICS_LOOP_MD = '---\nloop-runtime:\n  loops:\n    ci-sweeper:\n      level: L2\n---\n# Loops\n';

const proposal = (name: string) => ({
  type: 'proposal', at: '2026-11-18T10:00:00.000Z', pattern: 'ci-sweeper', tickId: `tick-${name}`, itemKey: name, commit: name.padEnd(40, '0'),
  branch: `loop/ci-sweeper/${name}`, base: 'main', delivery: 'local', level: 'L2', tokens: 1000, source: 'tick',
});
const observation = (name: string, state: string) => ({ type: 'observation', at: '2026-11-19T10:00:00.000Z', pattern: 'ci-sweeper', commit: name.padEnd(40, '0'), state, via: 'git' });

/** Writes the history into `root` (which holds METRICS_LOOP_MD as LOOP.md). */
export async function seedMetricsHistory(root: string): Promise<void> {
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
}
