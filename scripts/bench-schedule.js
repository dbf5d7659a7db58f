/**
 * Scheduling costs. Called by scripts/bench.js; needs `npm run build`.
 *
 * - dueDecisionMsFor1000Loops: `run --due`'s decision over 1,000 configured
 *   loops (plans resolved, run log + lease history read back, decideDue),
 *   against a run log holding 10 past ticks per loop.
 * - budgetCheckMsAt1k / budgetCheckMsAt100k: FileBudgetLedger.spentOn for
 *   today against a run log and a spend journal of 1,000 vs 100,000 lines
 *   (the same 50 entries today, the rest on earlier days). The ledger reads
 *   backwards and stops at yesterday, so both should cost about the same.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MARKER = '<!-- Loop appends below this line -->';
const DAY = 86_400_000;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function time(action, repeat) {
  const samples = [];
  for (let index = 0; index < repeat; index++) {
    const start = performance.now();
    await action();
    samples.push(performance.now() - start);
  }
  return Math.round(median(samples) * 100) / 100;
}

function iso(ms) {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

function projectWithLoops(count, now) {
  const root = mkdtempSync(join(tmpdir(), 'loop-bench-schedule-'));
  const ids = Array.from({ length: count }, (_, index) => `loop-${String(index).padStart(4, '0')}`);
  const cadences = ['5m-15m', '1h', '6h-1d', '1d-2h'];
  const registry = ids.map((id, index) =>
    [
      `  - id: ${id}`,
      `    name: Loop ${index}`,
      `    file: ${id}.md`,
      `    goal: Benchmark loop ${index}`,
      `    cadence: ${cadences[index % cadences.length]}`,
      '    risk: low',
      '    tools: [claude-code]',
      '    skills: [loop-triage]',
      '    state: STATE.md',
      '    phases: [report, escalate]',
      '    human_gates: [design-decisions]',
      '    week_one_mode: L1',
    ].join('\n'),
  );
  writeFileSync(join(root, 'registry.yaml'), `patterns:\n${registry.join('\n')}\n`);
  const lines = [];
  for (let tick = 10; tick >= 1; tick--) {
    for (const [index, id] of ids.entries()) {
      lines.push(JSON.stringify({ run_id: iso(now - tick * 20 * 60_000 - index), pattern: id, duration_s: 3, items_found: 0, actions_taken: 0, escalations: 0, tokens_estimate: 0, outcome: tick % 3 === 0 ? 'report-only' : 'no-op' }));
    }
  }
  lines.sort((a, b) => JSON.parse(a).run_id.localeCompare(JSON.parse(b).run_id));
  writeFileSync(join(root, 'loop-run-log.md'), `# Loop Run Log\n\n${MARKER}\n${lines.join('\n')}\n`);
  return { root, ids };
}

function ledgerRoot(lines, now) {
  const root = mkdtempSync(join(tmpdir(), 'loop-bench-ledger-'));
  mkdirSync(join(root, '.loop-runtime'));
  const today = 50;
  const older = lines - today;
  const spend = [];
  const runLog = [];
  for (let index = 0; index < lines; index++) {
    const at = index < older ? now - DAY - (older - index) * 60_000 : now - (lines - index) * 1_000;
    spend.push(JSON.stringify({ at, day: new Date(at).toISOString().slice(0, 10), patternId: 'ci-sweeper', tickId: `t${index}`, phase: 'triage', tokens: 100, costUsd: null }));
    runLog.push(JSON.stringify({ run_id: iso(at), pattern: 'ci-sweeper', duration_s: 1, items_found: 0, actions_taken: 0, escalations: 0, tokens_estimate: 100, outcome: 'no-op' }));
  }
  writeFileSync(join(root, '.loop-runtime', 'spend.jsonl'), `${spend.join('\n')}\n`);
  writeFileSync(join(root, 'loop-run-log.md'), `# Loop Run Log\n\n${MARKER}\n`);
  appendFileSync(join(root, 'loop-run-log.md'), `${runLog.join('\n')}\n`);
  return root;
}

/** @returns {Promise<{ dueDecisionMsFor1000Loops: number, budgetCheckMsAt1k: number, budgetCheckMsAt100k: number, budgetBytesReadAt1k: number, budgetBytesReadAt100k: number }>} */
export async function benchSchedule() {
  const { loadProject } = await import('../dist/src/project/load-project.js');
  const { evaluateDueLoops } = await import('../dist/src/use-cases/due-loops.js');
  const { FileBudgetLedger } = await import('../dist/src/adapters/budget-ledger/file-budget-ledger.js');
  // A fixed mid-day "now", so "today" never straddles midnight while the benchmark runs.
  const now = Date.UTC(2026, 8, 15, 12, 0, 0);
  const cleanup = [];
  try {
    const { root } = projectWithLoops(1000, now);
    cleanup.push(root);
    const loaded = await loadProject(root);
    if (!loaded.ok) throw new Error(`bench project does not load: ${JSON.stringify(loaded.issues.slice(0, 3))}`);
    const project = { ...loaded.project, configuredLoops: loaded.project.patterns.filter((pattern) => pattern.id.startsWith('loop-')).map((pattern) => pattern.id) };
    let dueCount = 0;
    const dueDecisionMsFor1000Loops = await time(async () => {
      const evaluation = await evaluateDueLoops(project, now);
      if (evaluation.decisions.length !== 1000) throw new Error(`expected 1000 decisions, got ${evaluation.decisions.length}`);
      dueCount = evaluation.decisions.filter((decision) => decision.due).length;
    }, 5);

    const budget = {};
    for (const [name, lines] of [['1k', 1_000], ['100k', 100_000]]) {
      const root = ledgerRoot(lines, now);
      cleanup.push(root);
      const ledger = new FileBudgetLedger({ root });
      const day = new Date(now).toISOString().slice(0, 10);
      let spent = 0;
      budget[`ms${name}`] = await time(async () => {
        spent = await ledger.spentOn(day, 'ci-sweeper');
      }, 21);
      if (spent !== 2 * 50 * 100) throw new Error(`expected ${2 * 50 * 100} tokens today, got ${spent}`);
      budget[`bytes${name}`] = Math.round(ledger.stats.bytesRead / 22);
    }
    return {
      dueDecisionMsFor1000Loops,
      dueLoopsOf1000: dueCount,
      budgetCheckMsAt1k: budget.ms1k,
      budgetCheckMsAt100k: budget.ms100k,
      budgetBytesReadAt1k: budget.bytes1k,
      budgetBytesReadAt100k: budget.bytes100k,
    };
  } finally {
    for (const root of cleanup) rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchSchedule(), null, 2));
}
