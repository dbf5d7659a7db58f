/**
 * A failed tick is logged as `failed` (never as a quiet no-op), does not make
 * `run --due` back off, keeps the state file's watch list and leaves a note.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStateWriter } from '../../src/adapters/state-writer/file-state-writer.js';
import { runLogOutcome } from '../../src/core/engine/tick-result.js';
import type { TickRecord } from '../../src/core/ports/index.js';
import { summarizeRuns } from '../../src/core/schedule/run-history.js';
import { loadProject } from '../../src/project/load-project.js';
import { evaluateDueLoops } from '../../src/use-cases/due-loops.js';
import { loopMarkdown } from '../e2e-fixtures.js';
import { cleanupTempDirs, makeRepo } from '../git-fixtures.js';

afterAll(cleanupTempDirs);

const START = Date.UTC(2026, 10, 23, 8);
const record = (overrides: Partial<TickRecord>): TickRecord => ({
  tickId: 't1', patternId: 'ci-sweeper', startedAt: START, finishedAt: START + 1000, outcome: 'report-only', kind: 'report', level: 'L1',
  itemsFound: 1, actionsTaken: 0, escalations: 0, tokens: 500, summary: 'one flaky test', waiting: [],
  findings: [{ severity: 'watch', summary: 'flaky: test/slow.test.ts' }], ...overrides,
});

describe('failed ticks', () => {
  it('are logged with outcome "failed" and our kind, keep the watch list, and leave a note in the state file', async () => {
    expect(runLogOutcome({ kind: 'failed' } as Parameters<typeof runLogOutcome>[0])).toBe('failed');
    const root = await makeRepo({ 'README.md': '# x\n' });
    const writer = new FileStateWriter({ root, stateFile: 'ci-sweeper-state.md', runLog: 'loop-run-log.md' });
    await writer.recordTick(record({}));
    await writer.recordTick(record({ tickId: 't2', startedAt: START + 3_600_000, finishedAt: START + 3_601_000, outcome: 'failed', kind: 'failed', findings: [], summary: 'implementer error: spawn claude ENOENT' }));
    const state = await readFile(join(root, 'ci-sweeper-state.md'), 'utf8');
    expect(state).toContain('flaky: test/slow.test.ts');
    expect(state).toMatch(/tick t2 failed \(failed\): implementer error: spawn claude ENOENT/);
    const log = await readFile(join(root, 'loop-run-log.md'), 'utf8');
    expect(log).toContain('"outcome":"failed"');
    expect(log).toContain('"kind":"failed"');
  });

  it('never count as quiet ticks: run --due does not back off after failures, old "no-op"+kind failed lines included', async () => {
    const history = [1, 2, 3, 4].map((hour) => ({ loop: 'ci-sweeper', at: START + hour * 3_600_000, outcome: 'failed' }));
    expect(summarizeRuns(history).get('ci-sweeper')?.consecutiveNoops).toBe(0);

    const legacy = [1, 2, 3, 4, 5, 6]
      .map((step) => JSON.stringify({ run_id: new Date(START + step * 900_000).toISOString().replace(/\.\d+Z$/, 'Z'), pattern: 'ci-sweeper', tokens_estimate: 0, outcome: 'no-op', tick_id: `t${step}`, kind: 'failed' }))
      .join('\n');
    const root = await makeRepo({
      'LOOP.md': loopMarkdown({ backend: 'mock', loops: { 'ci-sweeper': {} } }),
      'loop-run-log.md': `# Loop Run Log\n\n<!-- Loop appends below this line -->\n${legacy}\n`,
    });
    const loaded = await loadProject(root);
    if (!loaded.ok) throw new Error('project');
    const due = await evaluateDueLoops(loaded.project, START + 7 * 900_000);
    const decision = due.decisions.find((candidate) => candidate.id === 'ci-sweeper');
    // Six quiet ticks would stretch the interval to the long end of the cadence; failures keep the short end.
    expect(decision?.intervalMs).toBe(due.plans.get('ci-sweeper')?.cadence.minIntervalMs);
  });
});
