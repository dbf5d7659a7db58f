/**
 * A repository the console has to fit at 1280 px: five loops (one with a 48-character id from the project's own
 * registry), backends configured, chosen by the scaffold (`auto`) and mock, a history of every kind of tick, and
 * 30 days of spend with and without dollars — one day above a million tokens, so the y axis needs "1.2M"-wide labels.
 * Days are relative to the day the fixture is written (the console reads the last 30 UTC days).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run, scaffoldRepository } from './server-fixtures.js';

export const LONG_ID = 'nightly-dependency-and-security-advisory-sweeper';
export const LOOP_IDS = [LONG_ID, 'daily-triage', 'ci-sweeper', 'dependency-sweeper', 'post-merge-cleanup'] as const;

const REGISTRY = `patterns:
  - id: ${LONG_ID}
    name: Nightly Dependency and Security Advisory Sweeper
    file: nightly.md
    goal: Bump vulnerable dependencies and open verified pull requests
    cadence: 1d
    risk: medium
    tools: [claude-code, codex, opencode]
    skills: [minimal-fix]
    state: nightly-state.md
    phases: [discover, fix, verify]
    human_gates: [security]
    week_one_mode: L1
    token_cost: high
    cost: {tokens_noop: 5000, tokens_report: 60000, tokens_action: 250000, stable_fraction: 0.35, suggested_daily_cap: 1500000, early_exit_required: true}
  - { id: daily-triage }
  - { id: ci-sweeper }
  - { id: dependency-sweeper }
  - { id: post-merge-cleanup }
`;

// daily-triage rehearses on the mock; ci-sweeper and dependency-sweeper name their agent; the other two name none,
// so the plan says `auto` and the scaffold's agent (claude-code, when its binary is installed) is what runs.
const BLOCK = `loop-runtime:
  level: L2
  verify: ["true"]
  loops:
    daily-triage:
      backend: mock
      backendOptions:
        scenarios: [escalate]
    ci-sweeper:
      backend: codex
    dependency-sweeper:
      level: L1
      backend: opencode
    post-merge-cleanup: {}
    ${LONG_ID}: {}
`;

const DAY_MS = 86_400_000;
const dayOf = (now: number, back: number) => new Date(now - back * DAY_MS).toISOString().slice(0, 10);

/** Tokens per day and loop (days back from today) and dollars where the price is known. */
function spendLines(now: number): string[] {
  const lines: string[] = [];
  const add = (patternId: string, back: number, tokens: number, costUsd: number | null) =>
    lines.push(JSON.stringify({ at: now - back * DAY_MS, day: dayOf(now, back), patternId, tickId: `tick-${patternId}-${back}`, phase: 'implement', tokens, costUsd }));
  for (let back = 20; back >= 0; back--) {
    add(LONG_ID, back, back === 3 ? 1_234_567 : 180_000 + back * 9_000, back === 3 ? 18.52 : 2.7 + back / 10);
    add('ci-sweeper', back, 40_000 + back * 1_000, null); // codex reported no price
    if (back % 2 === 0) add('post-merge-cleanup', back, 150_000, 1.25);
  }
  return lines;
}

function runLogLines(now: number): string[] {
  // No `halted` tick: a halt stops its loop until resumed, and the layout test wants every loop free to run.
  const kinds = ['proposed', 'escalated', 'rejected', 'failed', 'no-op', 'report-only'];
  const outcome: Record<string, string> = { proposed: 'fix-proposed', escalated: 'escalated', rejected: 'report-only', failed: 'no-op', 'no-op': 'no-op', halted: 'no-op', 'report-only': 'report-only' };
  const lines: string[] = [];
  LOOP_IDS.forEach((pattern, loopIndex) => {
    for (let back = 6; back >= 0; back--) {
      const kind = kinds[(back + loopIndex) % kinds.length]!;
      const at = new Date(now - back * DAY_MS - (loopIndex + 1) * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      lines.push(JSON.stringify({ run_id: at, pattern, duration_s: 42, items_found: 1, actions_taken: kind === 'proposed' ? 1 : 0, escalations: kind === 'escalated' ? 1 : 0, tokens_estimate: 12_345, outcome: outcome[kind], tick_id: `tick-${pattern}-${back}`, level: 'L2', kind }));
    }
  });
  return lines.sort((a, b) => a.localeCompare(b));
}

/** The realistic repository; `now` is when the history ends (today). */
export async function realisticRepository(now = Date.now()): Promise<string> {
  const repo = await scaffoldRepository(['escalate']);
  const loopMd = await readFile(join(repo, 'LOOP.md'), 'utf8');
  const body = loopMd.split('---\n').slice(2).join('---\n');
  await writeFile(join(repo, 'LOOP.md'), `---\n${BLOCK}---\n${body}`);
  await writeFile(join(repo, 'registry.yaml'), REGISTRY);
  const runLog = await readFile(join(repo, 'loop-run-log.md'), 'utf8');
  await writeFile(join(repo, 'loop-run-log.md'), `${runLog.trimEnd()}\n${runLogLines(now).join('\n')}\n`);
  await mkdir(join(repo, '.loop-runtime'), { recursive: true });
  await writeFile(join(repo, '.loop-runtime', 'spend.jsonl'), `${spendLines(now).join('\n')}\n`);
  await run('git', ['add', 'LOOP.md', 'registry.yaml', 'loop-run-log.md'], { cwd: repo });
  await run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', 'commit', '--quiet', '-m', 'five loops'], { cwd: repo });
  return repo;
}
