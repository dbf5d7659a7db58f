#!/usr/bin/env node
/**
 * Cold start of the built CLI, as a ratio to `node -e 0`, in a repository the
 * real loop-init scaffolded (daily-triage for claude, committed). Each sample
 * is a pair — `node -e 0`, then the command — so load on the machine hits
 * both alike; the table shows medians (the ratio: of each pair's ratio). Prints numbers, asserts nothing.
 *
 * `node scripts/bench-cold.js [runs]` runs it alone (after `npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'loop-runtime.js');
const GIT_IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };

/**
 * The commands measured, with their target ratio to `node -e 0`. The CLI runs tsc's dist/src (one copy of the code
 * with the library), each command's handler loaded by `import()`; DESIGN.md "Cold start" has the numbers.
 */
export const COLD_COMMANDS = [
  { label: '--version', args: ['--version'], target: 1.6 },
  { label: 'list', args: ['list'], target: 1.6 },
  { label: 'plan daily-triage', args: ['plan', 'daily-triage'], target: 1.6 },
  { label: 'status', args: ['status'], target: 1.6 },
  { label: 'validate', args: ['validate'], target: 1.6 },
  { label: 'run daily-triage --level L2 --dry-run', args: ['run', 'daily-triage', '--level', 'L2', '--dry-run'], target: 4 },
];

function check(result, what) {
  if (result.status !== 0) throw new Error(`${what} exited ${result.status}: ${String(result.stderr ?? '').slice(0, 500)}`);
  return result;
}

/** A fresh loop-init scaffold (daily-triage, claude) with one commit; returns its path. */
export function scaffold() {
  const repo = mkdtempSync(join(tmpdir(), 'loop-bench-cold-'));
  const env = { ...process.env, ...GIT_IDENTITY, NO_COLOR: '1' };
  check(spawnSync('git', ['init', '-q', '-b', 'main', repo], { env }), 'git init');
  check(spawnSync(join(root, 'node_modules', '.bin', 'loop-init'), [repo, '--pattern', 'daily-triage', '--tool', 'claude'], { env }), 'loop-init');
  check(spawnSync('git', ['add', '-A'], { cwd: repo, env }), 'git add');
  check(spawnSync('git', ['commit', '-q', '-m', 'loop-init scaffold'], { cwd: repo, env }), 'git commit');
  return repo;
}

function wallMs(command, args, cwd, env) {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { cwd, env, stdio: 'ignore' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status} in ${cwd}`);
  return ms;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const round = (value, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

/**
 * Paired samples per command: `node -e 0` then the CLI, `runs` times (one warm-up pair first, not counted).
 *
 * @example
 * ```js
 * const rows = benchColdStart({ runs: 9 }); // [{ command: 'list', cliMs: 52.1, nodeMs: 40.3, ratio: 1.29, target: 1.5, pass: true }, …]
 * ```
 */
export function benchColdStart({ runs = 21 } = {}) {
  const repo = scaffold();
  // The user's own environment, minus what would change the answer (colour, CI progress lines).
  const env = { ...process.env, NO_COLOR: '1', CI: '' };
  try {
    return COLD_COMMANDS.map(({ label, args, target }) => {
      const node = [];
      const cli = [];
      for (let index = 0; index <= runs; index++) {
        const nodeMs = wallMs(process.execPath, ['-e', '0'], repo, env);
        const cliMs = wallMs(process.execPath, [bin, ...args], repo, env);
        if (index === 0) continue; // warm-up: page cache, git's first index refresh
        node.push(nodeMs);
        cli.push(cliMs);
      }
      const nodeMs = median(node);
      const cliMs = median(cli);
      // The median of each pair's ratio, not the ratio of the medians: a pair shares the machine's load of its moment.
      const ratio = round(median(cli.map((ms, index) => ms / node[index])), 2);
      return { command: label, cliMs: round(cliMs), nodeMs: round(nodeMs), ratio, target, pass: ratio <= target };
    });
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

/** The table `npm run bench` prints. */
export function formatColdTable(rows) {
  const header = ['command', 'median ms', 'node -e 0 ms', 'ratio', 'target', 'result'];
  const lines = rows.map((row) => [`loop-runtime ${row.command}`, row.cliMs.toFixed(1), row.nodeMs.toFixed(1), `${row.ratio.toFixed(2)}×`, `≤ ${row.target}×`, row.pass ? 'pass' : 'FAIL']);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  return [format(header), format(widths.map((width) => '-'.repeat(width))), ...lines.map(format)].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 21);
  console.log(`cold start, median of ${runs} paired runs in a loop-init scaffold (load: ${loadavg().map((load) => load.toFixed(2)).join(' ')})`);
  console.log(formatColdTable(benchColdStart({ runs })));
}
