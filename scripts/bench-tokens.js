/**
 * Tokens per tick, per phase, for every catalogue pattern (called from scripts/bench.js; also runs alone:
 * `node scripts/bench-tokens.js [pattern…]`). The measuring runs in scripts/bench-tokens-run.ts under vite-node
 * (the fake servers are TypeScript): a real L2 tick through the real `claude` CLI and through the OpenAI tool
 * loop, each against a local fake that meters the real request bodies (4 characters a token over the request in
 * cache order, see test/fakes/token-meter.ts). Beside it, the real `loop-cost` CLI's estimate for the same
 * pattern and mix: an action tick with an independent checker (`--orchestration maker-checker`) and a no-op tick.
 * Prints numbers, asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PHASES = ['triage', 'implement', 'check'];

/** Why a quiet repository still costs a model call, for the patterns whose probes cannot decide. */
const NEEDS_MODEL = {
  'daily-triage': 'no probe: the morning scan weighs chat, CI, issues and commits together, which no cheap command rules out',
};

function loopCost(pattern) {
  const cli = join(root, 'node_modules', '@cobusgreyling', 'loop-cost', 'dist', 'cli.js');
  const result = spawnSync(process.execPath, [cli, '--pattern', pattern, '--level', 'L2', '--orchestration', 'maker-checker', '--with-caching', '--json'], { encoding: 'utf8' });
  if (result.status !== 0) return null;
  const estimate = JSON.parse(result.stdout);
  return { action: estimate.scenarios.action.tokensPerRun, noop: estimate.scenarios.noop.tokensPerRun, cachingSavings: estimate.scenarios.caching?.savingsPercent ?? null };
}

const percent = (part, whole) => (whole > 0 ? `${Math.round((100 * part) / whole)} %` : '—');
const number = (value) => (value === null || value === undefined ? '—' : value.toLocaleString('en-US'));

/** Runs the measurement and returns the report lines. */
export async function benchTokens(patterns = []) {
  const viteNode = join(root, 'node_modules', '.bin', 'vite-node');
  const claude = join(root, 'node_modules', '.bin', 'claude');
  if (!existsSync(viteNode) || !existsSync(claude)) return null;
  const run = spawnSync(viteNode, [join(root, 'scripts', 'bench-tokens-run.ts'), ...patterns], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
  if (run.status !== 0) throw new Error(`bench-tokens-run failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const measured = JSON.parse(run.stdout.trim().split('\n').pop());
  const estimates = new Map();
  for (const tick of measured.ticks) if (!estimates.has(tick.pattern)) estimates.set(tick.pattern, loopCost(tick.pattern));

  const lines = [`tokens per L2 tick, measured by the fake model servers (${measured.charsPerToken} chars a token over the real request bodies), beside loop-cost's estimate:`];
  lines.push(
    `  ${'backend'.padEnd(11)} ${'pattern'.padEnd(19)} ${'outcome'.padEnd(9)} ${PHASES.map((phase) => `${phase} in/out`.padStart(17)).join(' ')} ${'total'.padStart(7)}` +
      `  ${'cached impl/check'.padStart(17)}  ${'1st call impl/check'.padStart(19)}  ${'loop-cost action'.padStart(16)}`,
  );
  for (const tick of measured.ticks) {
    const cells = PHASES.map((phase) => {
      const tokens = tick.phases[phase];
      return (tokens ? `${number(tokens.input)}/${number(tokens.output)}` : '—').padStart(17);
    });
    const total = Object.values(tick.phases).reduce((sum, phase) => sum + phase.input + phase.output, 0);
    const after = (phase) => (phase ? percent(phase.shared - phase.firstCallShared, phase.input - phase.firstCallInput) : '—');
    const first = (phase) => (phase ? percent(phase.firstCallShared, phase.firstCallInput) : '—');
    const estimate = estimates.get(tick.pattern);
    lines.push(
      `  ${tick.backend.padEnd(11)} ${tick.pattern.padEnd(19)} ${tick.outcome.slice(0, 9).padEnd(9)} ${cells.join(' ')} ${number(total).padStart(7)}` +
        `  ${`${after(tick.phases.implement)} / ${after(tick.phases.check)}`.padStart(17)}  ${`${first(tick.phases.implement)} / ${first(tick.phases.check)}`.padStart(19)}` +
        `  ${number(estimate?.action).padStart(16)}`,
    );
    if (tick.outcome.startsWith('failed') || tick.outcome === 'halted') lines.push(`    ${tick.pattern} (${tick.backend}): ${tick.outcome}`);
  }
  lines.push('  cached = share of input tokens in a prefix byte-identical to the loop\'s previous call (calls after the phase\'s first; goal ≥ 70 %);');
  lines.push('  1st call = the same for the phase\'s first call, whose tools and role differ from the previous phase\'s.');
  lines.push('quiet repository (probes see nothing; gh answers [] and the default branch has no recent commit):');
  for (const quiet of measured.quiet) {
    const estimate = estimates.get(quiet.pattern) ?? loopCost(quiet.pattern);
    const why =
      quiet.outcome !== 'noop'
        ? quiet.outcome
        : quiet.tokens === 0
          ? `decided by ${quiet.probes.join(', ')}`
          : (NEEDS_MODEL[quiet.pattern] ?? `${quiet.modelCalls} model call(s) although it has probes`);
    lines.push(`  ${quiet.pattern.padEnd(19)} ${quiet.outcome.slice(0, 9).padEnd(9)} ${number(quiet.tokens).padStart(6)} tokens  (loop-cost no-op: ${number(estimate?.noop)})  ${why}`);
  }
  return { lines, measured };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await benchTokens(process.argv.slice(2));
  console.log(report ? report.lines.join('\n') : 'tokens per tick: skipped (vite-node or claude not installed)');
}
