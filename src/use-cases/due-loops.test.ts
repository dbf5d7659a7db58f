import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateDueLoops } from './due-loops.js';
import { loadProject, type LoadedProject } from '../project/load-project.js';

const MINUTE = 60_000;
const NOW = Date.UTC(2026, 8, 15, 12, 0, 0);
const MARKER = '<!-- Loop appends below this line -->';
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const runLine = (pattern: string, at: number, outcome: string, tick?: string) => JSON.stringify({ run_id: iso(at), pattern, tokens_estimate: 0, outcome, ...(tick ? { tick_id: tick } : {}) });

let root: string;
let project: LoadedProject;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'due-loops-'));
  await writeFile(join(root, 'LOOP.md'), '---\nloop-runtime:\n  loops:\n    ci-sweeper: { level: L1 }\n    pr-babysitter: { level: L1 }\n    daily-triage: { level: L1 }\n---\n');
  // 20,000 old lines nobody needs, then the recent history.
  const old = Array.from({ length: 20_000 }, (_, index) => runLine('ci-sweeper', NOW - 20 * 86_400_000 + index * 1000, 'no-op'));
  const recent = [
    runLine('ci-sweeper', NOW - 40 * MINUTE, 'fix-proposed', 'c1'),
    runLine('ci-sweeper', NOW - 30 * MINUTE, 'no-op', 'c2'),
    runLine('ci-sweeper', NOW - 12 * MINUTE, 'no-op', 'c3'), // two no-ops: interval 15m, last 12m ago → not due
    runLine('daily-triage', NOW - 3 * 3_600_000, 'report-only', 'd1'), // short end 2h passed → due
  ];
  await writeFile(join(root, 'loop-run-log.md'), `# Loop Run Log\n\n${MARKER}\n${[...old, ...recent].join('\n')}\n`);
  // pr-babysitter's last tick halted (budget): only the lease history has it.
  await mkdir(join(root, '.loop-runtime'), { recursive: true });
  await writeFile(
    join(root, '.loop-runtime', 'lease-history.jsonl'),
    [
      { event: 'acquire', kind: 'loop', name: 'pr-babysitter', loop: 'pr-babysitter', at: NOW - 2 * MINUTE },
      { event: 'release', kind: 'loop', name: 'pr-babysitter', loop: 'pr-babysitter', at: NOW - 2 * MINUTE + 500, startedAt: NOW - 2 * MINUTE, outcome: 'no-op', tickKind: 'halted', tickId: 'p1' },
      { event: 'release', kind: 'loop', name: 'ci-sweeper', loop: 'ci-sweeper', at: NOW - 12 * MINUTE + 500, startedAt: NOW - 12 * MINUTE, outcome: 'no-op', tickKind: 'noop', tickId: 'c3' },
    ].map((line) => JSON.stringify(line)).join('\n') + '\n',
  );
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  project = loaded.project;
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('evaluateDueLoops', () => {
  it('decides from the run log and the lease history, counting a tick seen in both once', async () => {
    const { decisions } = await evaluateDueLoops(project, NOW);
    const byId = Object.fromEntries(decisions.map((decision) => [decision.id, decision]));
    expect(byId['ci-sweeper']).toMatchObject({ due: false, reason: 'not-yet', intervalMs: 15 * MINUTE });
    expect(byId['pr-babysitter']).toMatchObject({ due: false, reason: 'not-yet', intervalMs: 10 * MINUTE });
    expect(byId['daily-triage']).toMatchObject({ due: true, reason: 'due', intervalMs: 120 * MINUTE });
  });

  it('reads only as far back as can change a decision, not the whole log', async () => {
    const stats = { bytesRead: 0 };
    await evaluateDueLoops(project, NOW, { stats });
    expect(stats.bytesRead).toBeLessThan(200 * 1024);
    expect(stats.bytesRead).toBeGreaterThan(0);
  });

  it('evaluates just one loop when asked', async () => {
    const { decisions } = await evaluateDueLoops(project, NOW, { loops: ['daily-triage'] });
    expect(decisions.map((decision) => decision.id)).toEqual(['daily-triage']);
  });
});
