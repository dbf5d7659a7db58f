#!/usr/bin/env node
/**
 * `npm run bench`: prints numbers, asserts nothing. Speed targets live here,
 * never in the test suite.
 *
 * - in-process ticks per second with the mock backend (target ≥ 20,000/s), and CPU µs per tick (quieter under load)
 * - cold start of the built CLI per command, as a ratio to `node -e 0` (scripts/bench-cold.js: `--version`, `list`,
 *   `plan`, `status`, `validate` ≤ 1.6×; `run <id> --dry-run` ≤ 4×, in wall and CPU time), in a loop-init scaffold
 * - a real tick's wall time split into model, tests, git/worktree, sandbox start-up and other, for a small and a
 *   20,000-file repository, first tick and second tick on the unchanged base (scripts/bench-tick-split.js; target:
 *   the second ≤ 1.5× one run of the verification command)
 * - the workspace and scheduling benchmarks, when their modules are built
 * - the Codex backend's budget overshoot past a reservation, when codex is installed
 * - the same for the claude, opencode and gemini CLI backends, each against its local fake (scripts/bench-overshoot.js)
 * - the cheating catalogue (scripts/bench-verification.js): cheats caught by the base-test rule, the diff check and
 *   the checker, and honest fixes committed (target: every one)
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (path) => join(root, 'dist', path);

async function benchTicks() {
  const { LoopEngine, BudgetBreaker, buildPlan, loadRegistry } = await import(dist('src/index.js'));
  const { MockBackend, MemoryBudgetLedger, MemoryWorkspace, MemoryAttemptLedger, MemoryStateWriter, FixedClock, MemoryKillSwitch, SequentialIds, ScriptedCommandRunner } = await import(dist('src/testing/index.js'));
  const { readFileSync } = await import('node:fs');
  const registry = loadRegistry(readFileSync(join(root, 'registry.yaml'), 'utf8'));
  const pattern = registry.value.patterns.find((entry) => entry.id === 'daily-triage');
  const plan = buildPlan(pattern, { level: 'L2', overrides: { dailyTokenCap: Number.MAX_SAFE_INTEGER, verify: ['npm test'] } });
  const run = async (ticks) => {
    const clock = new FixedClock('2026-11-21T08:00:00Z', 1);
    const engine = new LoopEngine(plan, {
      backend: new MockBackend({ recordCalls: false }),
      state: new MemoryStateWriter(),
      budget: new BudgetBreaker(plan.dailyTokenCap, { ledger: new MemoryBudgetLedger() }),
      workspace: new MemoryWorkspace({ files: { 'src/example.ts': 'export const answer = 42;\n' } }),
      attempts: new MemoryAttemptLedger(),
      killSwitch: new MemoryKillSwitch(),
      clock,
      ids: new SequentialIds(clock),
      commands: new ScriptedCommandRunner(clock),
    });
    // CPU time as well as wall time: on a machine shared with other work the wall clock counts their time too,
    // while CPU µs per tick counts only this process (the GC's helper threads included).
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    let proposed = 0;
    for (let index = 0; index < ticks; index++) if ((await engine.tick()).kind === 'proposed') proposed++;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    if (proposed !== ticks) throw new Error(`expected ${ticks} proposed ticks, got ${proposed}`);
    return { perSecond: ticks / seconds, cpuMicros: (used.user + used.system) / ticks };
  };
  await run(2_000); // warm-up
  const samples = [];
  for (let index = 0; index < 3; index++) samples.push(await run(20_000));
  const median = (values) => values.sort((a, b) => a - b)[1];
  return {
    ticksPerSecond: Math.round(median(samples.map((sample) => sample.perSecond))),
    cpuMicrosPerTick: Math.round(median(samples.map((sample) => sample.cpuMicros))),
    samples: samples.map((sample) => Math.round(sample.perSecond)),
  };
}

async function optional(file, name) {
  const path = join(root, 'scripts', file);
  if (!existsSync(path)) return null;
  const module = await import(path);
  return typeof module[name] === 'function' ? module[name]() : null;
}

// Cold start first: it is the measurement most sensitive to a machine warmed up by the others.
const { benchColdStart, formatColdTable } = await import('./bench-cold.js');
const coldRuns = 11;
console.log(`cold start, median of ${coldRuns} paired runs in a loop-init scaffold (load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}; result: the CPU ratio against the target; files: of dist/lib loaded):`);
console.log(formatColdTable(benchColdStart({ runs: coldRuns })));
console.log(`the heaviest modules each command loads (scripts/bundle-weight.js):\n${(await import('./bundle-weight.js')).bundleWeightReport(8)}`);
const ticks = await benchTicks();
console.log(`in-process ticks/s (mock backend, memory ports, L2 act+verify+commit): ${ticks.ticksPerSecond.toLocaleString('en-US')}, CPU ${ticks.cpuMicrosPerTick} µs/tick  (target ≥ 20,000/s, i.e. ≤ 50 µs; samples ${ticks.samples.join(', ')}/s)`);
const split = await optional('bench-tick-split.js', 'benchTickSplit'); // a real tick's wall time by port, small and 20k-file repositories
if (split) console.log((await import('./bench-tick-split.js')).formatTickSplit(split).join('\n'));
const workspace = await optional('bench-workspace.js', 'benchWorkspace');
if (workspace) console.log(`workspace setup per tick: reuse ${workspace.reuseMs} ms vs fresh git worktree add ${workspace.freshAddMs} ms → ratio ${workspace.ratio}×  (target ≤ 0.15×)`);
const schedule = await optional('bench-schedule.js', 'benchSchedule');
if (schedule) {
  console.log(`run --due decision over 1,000 loops: ${schedule.dueDecisionMsFor1000Loops} ms`);
  console.log(`budget check: ${schedule.budgetCheckMsAt1k} ms at 1k run-log lines, ${schedule.budgetCheckMsAt100k} ms at 100k lines`);
}
const served = await optional('bench-serve.js', 'benchServe');
if (served) {
  console.log(`serve /api/loops, 50 loops, 1,000 run-log lines: median ${served.loopsMedianMs} ms, p95 ${served.loopsP95Ms} ms, first ${served.loopsColdMs} ms  (target < 50 ms)`);
  console.log(`serve idle CPU over 3 s: ${served.idlePercent} % of a core, ${served.idleWithPagePercent} % with one page connected  (target < 1 %)`);
}
const codex = await optional('bench-codex.js', 'benchCodexOvershoot');
if (codex) console.log(`codex budget overshoot: ${codex.medianOvershoot} tokens past a ${codex.reservation.toLocaleString('en-US')}-token reservation before the kill (median of 3: ${codex.runs.join(', ')})`);
const overshoot = await optional('bench-overshoot.js', 'benchOvershoot'); // claude, opencode and gemini, each against its fake (scripts/bench-overshoot.js)
if (overshoot) console.log(overshoot.lines.join('\n'));
const verification = await optional('bench-verification.js', 'benchVerification');
if (verification) {
  const { caught, cheats, honest } = verification;
  console.log(
    `cheating catalogue: ${caught.any}/${cheats} cheats kept from a commit — by the base-test rule ${caught.baseTests}, by the plain commands ${caught.commands}, ` +
      `by the diff check ${caught.diffCheck}, by the test-edit rule ${caught.testEdits}, by the checker ${caught.checker} (checker called ${verification.checkerCalls}×; the scripted checker approves everything)`,
  );
  console.log(`  with testEdits: allow (no test-edit rule): ${verification.keptWithTestEditsAllowed}/${cheats} kept from a commit`);
  if (verification.missed.length) console.log(`  committed although cheating (no deterministic rule sees them): ${verification.missed.join('; ')}`);
  console.log(`honest fixes: ${verification.honestCommitted}/${honest} committed, ${verification.honestRejected.length} rejected or escalated  (target: 0)`);
  for (const line of verification.honestRejected) console.log(`  not committed: ${line}`);
}
const tokens = await optional('bench-tokens.js', 'benchTokens'); // tokens per tick and phase, cached prefix, no-op ticks (scripts/bench-tokens.js)
if (tokens) console.log(tokens.lines.join('\n'));
await optional('bench-fleet.js', 'benchFleet').then((fleet) => fleet && console.log(`fleet (Postgres, mock ticks at L2, every port call a durable step): ticks/s with 1, 2, 4 workers: ${fleet.perWorkers[1]}, ${fleet.perWorkers[2]}, ${fleet.perWorkers[4]}; kill -9 to resumption on another worker: ${fleet.resumeMs ?? 'not measured (no resumption within 30 s)'} ms`));
