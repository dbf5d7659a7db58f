/**
 * Budget overshoot per CLI backend (called from scripts/bench.js; also runs alone:
 * `node scripts/bench-overshoot.js [claude|opencode|gemini…]`). The measuring runs in
 * scripts/bench-overshoot-run.ts under vite-node (the fake servers are TypeScript): the real `claude`,
 * `opencode` and `gemini` binaries, each against its local fake with a model that never stops, killed by the
 * backend's meter at a 5,000-token reservation; the tokens reported past the reservation, 3 runs each.
 * The codex measurement lives in scripts/bench-codex.js. Prints numbers, asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Runs the measurement and returns one report line per backend (null without vite-node). */
export async function benchOvershoot(backends = []) {
  const viteNode = join(root, 'node_modules', '.bin', 'vite-node');
  if (!existsSync(viteNode)) return null;
  const run = spawnSync(viteNode, [join(root, 'scripts', 'bench-overshoot-run.ts'), ...backends], { cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 300_000 });
  if (run.status !== 0) throw new Error(`bench-overshoot-run failed (${run.status ?? run.signal}): ${(run.stderr ?? '').slice(-2000)}`);
  const { results } = JSON.parse(run.stdout.trim().split('\n').pop());
  const lines = results.map((result) =>
    result.skipped
      ? `${result.backend} budget overshoot: skipped (${result.skipped})`
      : `${result.backend} budget overshoot: ${result.medianOvershoot.toLocaleString('en-US')} tokens past a ${result.reservation.toLocaleString('en-US')}-token reservation before the kill (median of ${result.runs.length}: ${result.runs.map((tokens) => tokens.toLocaleString('en-US')).join(', ')})`,
  );
  return { lines, results };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await benchOvershoot(process.argv.slice(2));
  console.log(report ? report.lines.join('\n') : 'budget overshoot: skipped (node_modules/.bin/vite-node is missing)');
}
