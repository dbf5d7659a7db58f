#!/usr/bin/env node
/**
 * Cold start of the built CLI, as a ratio to `node -e 0`, in a repository the
 * real loop-init scaffolded (daily-triage for claude, committed). Each sample
 * is a pair — `node -e 0`, then the command — so load on the machine hits
 * both alike; the table shows medians (the ratio: of each pair's ratio). Prints numbers, asserts nothing.
 *
 * Two ratios: wall time (what a user waits on an idle machine) and CPU time (user + system of the process, from
 * scripts/cpu-at-exit.cjs), which a machine shared with other work inflates far less. The pass/fail column is the CPU
 * ratio's; the wall ratio means something only on an idle machine (the header prints the load average). Plus the
 * files of the bundle (dist/lib) each command loads, recorded once per command by the module hooks the tests use, and
 * their kilobytes (scripts/bundle-weight.js names the modules behind them).
 *
 * `node scripts/bench-cold.js [runs]` runs it alone (after `npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'loop-runtime.js');
const cpuAtExit = join(root, 'scripts', 'cpu-at-exit.cjs');
const recorder = join(root, 'test', 'fixtures', 'module-loads', 'record.mjs');
const GIT_IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };

/**
 * The commands measured, with their target ratio to `node -e 0`. The CLI runs dist/lib (one rolldown bundle shared
 * with the library, chunk groups for the everyday commands and the tick), each command's handler loaded by `import()`;
 * docs/design/build.md has the numbers.
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

/** One run: wall milliseconds and the process's own CPU milliseconds (user + system). */
function sample(command, args, cwd, env, cpuLog) {
  writeFileSync(cpuLog, '');
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['-r', cpuAtExit, ...command, ...args], { cwd, env: { ...env, LOOP_RUNTIME_CPU_LOG: cpuLog }, stdio: 'ignore' });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`node ${[...command, ...args].join(' ')} exited ${result.status} in ${cwd}`);
  const cpu = Number(readFileSync(cpuLog, 'utf8').trim()) / 1e3;
  if (!Number.isFinite(cpu) || cpu <= 0) throw new Error(`no CPU time recorded for node ${[...command, ...args].join(' ')}`);
  return { wall, cpu };
}

/**
 * The files of the bundle (dist/lib) one run of the command loads, recorded by module hooks (not timed), and their
 * kilobytes (output sizes from dist/lib/meta.json).
 */
function bundleFilesLoaded(args, cwd, env, loadLog) {
  writeFileSync(loadLog, '');
  const result = spawnSync(process.execPath, ['--import', recorder, bin, ...args], { cwd, env: { ...env, LOOP_RUNTIME_LOAD_LOG: loadLog }, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status} under the module recorder`);
  const files = [...new Set(readFileSync(loadLog, 'utf8').split('\n').filter((url) => url.startsWith('file:') && url.includes('/dist/lib/')))];
  const meta = JSON.parse(readFileSync(join(root, 'dist', 'lib', 'meta.json'), 'utf8'));
  const bytes = new Map(Object.entries(meta.outputs).map(([path, output]) => [basename(path), output.bytes]));
  return { files: files.length, kilobytes: files.reduce((sum, url) => sum + (bytes.get(basename(url)) ?? 0), 0) / 1024 };
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
 * const rows = benchColdStart({ runs: 9 });
 * // [{ command: 'list', cliMs: 52.1, nodeMs: 40.3, ratio: 1.29, cliCpuMs: 48.2, nodeCpuMs: 36.0, cpuRatio: 1.34, chunks: 4, kilobytes: 148, target: 1.6, pass: true }, …]
 * ```
 */
export function benchColdStart({ runs = 21 } = {}) {
  const repo = scaffold();
  const scratch = mkdtempSync(join(tmpdir(), 'loop-bench-cold-logs-'));
  const cpuLog = join(scratch, 'cpu');
  // The user's own environment, minus what would change the answer (colour, CI progress lines).
  const env = { ...process.env, NO_COLOR: '1', CI: '' };
  try {
    return COLD_COMMANDS.map(({ label, args, target }) => {
      const node = [];
      const cli = [];
      for (let index = 0; index <= runs; index++) {
        const nodeRun = sample(['-e', '0'], [], repo, env, cpuLog);
        const cliRun = sample([bin], args, repo, env, cpuLog);
        if (index === 0) continue; // warm-up: page cache, git's first index refresh
        node.push(nodeRun);
        cli.push(cliRun);
      }
      // The median of each pair's ratio, not the ratio of the medians: a pair shares the machine's load of its moment.
      const ratioOf = (key) => round(median(cli.map((run, index) => run[key] / node[index][key])), 2);
      const cpuRatio = ratioOf('cpu');
      const loaded = bundleFilesLoaded(args, repo, env, join(scratch, 'loads'));
      return {
        command: label,
        cliMs: round(median(cli.map((run) => run.wall))),
        nodeMs: round(median(node.map((run) => run.wall))),
        ratio: ratioOf('wall'),
        cliCpuMs: round(median(cli.map((run) => run.cpu))),
        nodeCpuMs: round(median(node.map((run) => run.cpu))),
        cpuRatio,
        chunks: loaded.files,
        kilobytes: round(loaded.kilobytes),
        target,
        pass: cpuRatio <= target,
      };
    });
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The table `npm run bench` prints. */
export function formatColdTable(rows) {
  const header = ['command', 'wall ms', 'node -e 0', 'wall ratio', 'CPU ms', 'node -e 0', 'CPU ratio', 'files', 'KB', 'target', 'result'];
  const lines = rows.map((row) => [
    `loop-runtime ${row.command}`,
    row.cliMs.toFixed(1),
    row.nodeMs.toFixed(1),
    `${row.ratio.toFixed(2)}×`,
    row.cliCpuMs.toFixed(1),
    row.nodeCpuMs.toFixed(1),
    `${row.cpuRatio.toFixed(2)}×`,
    String(row.chunks),
    row.kilobytes.toFixed(1),
    `≤ ${row.target}×`,
    row.pass ? 'pass' : 'FAIL',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  return [format(header), format(widths.map((width) => '-'.repeat(width))), ...lines.map(format)].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 21);
  console.log(`cold start, median of ${runs} paired runs in a loop-init scaffold (load average ${loadavg().map((load) => load.toFixed(2)).join(' ')} on ${availableParallelism()} cores; result: the CPU ratio against the target; files: of dist/lib loaded)`);
  console.log(formatColdTable(benchColdStart({ runs })));
  const { bundleWeightReport } = await import('./bundle-weight.js');
  console.log(`\nthe heaviest modules each command loads (scripts/bundle-weight.js):\n${bundleWeightReport(8)}`);
}
