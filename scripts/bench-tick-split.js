#!/usr/bin/env node
/**
 * `npm run bench`: where a real tick's wall time goes, with an instant model. One L2 tick through the engine on a
 * real repository (GitWorkspace: worktrees, diff, commit; BwrapRunner: the verification command in bubblewrap; the
 * scripted implementer writes one file), then a second tick on the same, unchanged base, whose baseline comes from
 * the cache (.loop-runtime/baseline-cache.json). For a small repository and a 20,000-file one.
 *
 * The split is measured at the ports, not guessed: every call into the backend (model), the command runner (tests)
 * and the workspace (git/worktree) is timed, exclusive of port calls nested in it (the base's tests run inside
 * `withBaseFiles`). Sandbox start-up is bubblewrap running `true` in an empty directory (the runner's own cost, not
 * the repository's secret-file walk, which runs beside the command), times the commands the tick ran, taken out of
 * the test time. The rest (the engine, the ledgers, reports) is "other". The tick on the unchanged base runs
 * `repeat` times (fresh ports each time, the base's results from the cache); the median is reported, with the
 * CPU time of the process and its children (git, bubblewrap), which a loaded machine inflates less than wall time.
 *
 * Each tick's git processes are counted and timed by subcommand (`BENCH_GIT_TRACE=1` prints every one with its
 * start and duration in ms from the tick's start, on stderr): a pass over a 20,000-entry index shows up by name.
 *
 * Target: the second tick ≤ 1.5× one run of the verification command (run alone, in bubblewrap).
 */
import childProcess, { execFileSync } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (path) => join(root, 'dist', path);
const IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };
/** The verification command: a test run that takes `checkMs` (the bench: about a second) besides node's start. */
const checkJs = (checkMs) => `setTimeout(() => { if (!require('fs').readFileSync('src/example.txt', 'utf8')) process.exit(1); console.log('ok'); }, ${checkMs});\n`;
const VERIFY = 'node check.cjs';

const git = (cwd, args) => execFileSync('git', args, { cwd, env: { ...process.env, ...IDENTITY }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
const now = () => Number(process.hrtime.bigint()) / 1e6;
/** CPU ms of this process and of its children that have ended (Linux: /proc/self/stat utime, stime, cutime, cstime). */
function cpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // Fields 14-17 of the file, counted from its third (the state) here; clock ticks of (almost always) 10 ms.
    return [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0) * 10;
  } catch {
    return Number.NaN;
  }
}
/**
 * Every git process the tick starts (simple-git spawns through `child_process.spawn`; the ES module binding follows
 * the patched export after `syncBuiltinESMExports`): its subcommand and wall time, to count a tick's passes over the
 * index. Installed once; `gitProcesses.length = 0` starts a new count.
 */
const gitProcesses = [];
function traceGitSpawns() {
  if (childProcess.spawn.traced) return;
  const original = childProcess.spawn;
  const traced = function (command, args, ...rest) {
    const child = original.call(this, command, args, ...rest);
    if (command === 'git' && Array.isArray(args)) {
      const record = { args, command: args.find((arg, index) => !arg.startsWith('-') && args[index - 1] !== '-c') ?? '?', start: now(), ms: Number.NaN };
      gitProcesses.push(record);
      child.once('close', () => (record.ms = now() - record.start));
    }
    return child;
  };
  traced.traced = true;
  childProcess.spawn = traced;
  syncBuiltinESMExports();
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A committed repository with `extraFiles` small files besides the checked file and the verification script. */
function makeRepo(parent, extraFiles, checkMs) {
  const repo = mkdtempSync(join(parent, `tick-split-${extraFiles}-`));
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src', 'example.txt'), 'answer: 42\n');
  writeFileSync(join(repo, 'check.cjs'), checkJs(checkMs));
  writeFileSync(join(repo, '.gitignore'), '.loop-runtime/\n');
  for (let index = 0; index < extraFiles; index++) {
    const directory = join(repo, 'data', String(Math.floor(index / 500)));
    if (index % 500 === 0) mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, `file-${index}.txt`), `line ${index}\n`);
  }
  git(repo, ['init', '--quiet', '--initial-branch=main']);
  git(repo, ['add', '--all']);
  git(repo, ['commit', '--quiet', '-m', 'base']);
  return repo;
}

/**
 * Times every method of the ports by category, exclusive of nested timed calls (one tick runs its port calls one
 * after another). Objects a method returns synchronously (`workspace.files(handle)`) are timed as the same category.
 */
function createTimer() {
  const totals = { model: 0, test: 0, git: 0 };
  const counts = { commandRuns: 0 };
  /** Exclusive time per `category.method`, to say which git step costs what. */
  const byMethod = new Map();
  const stack = [];
  const timed = (category, target) =>
    new Proxy(target, {
      get(object, property) {
        const value = Reflect.get(object, property);
        if (typeof value !== 'function' || property === 'constructor') return value;
        return (...args) => {
          if (category === 'test' && property === 'run') counts.commandRuns += 1;
          const frame = { start: now(), nested: 0 };
          stack.push(frame);
          const finish = () => {
            stack.pop();
            const elapsed = now() - frame.start;
            totals[category] += elapsed - frame.nested;
            const key = `${category === 'git' ? 'workspace' : category}.${String(property)}`;
            byMethod.set(key, (byMethod.get(key) ?? 0) + elapsed - frame.nested);
            if (stack.length) stack[stack.length - 1].nested += elapsed;
          };
          let result;
          try {
            result = value.apply(object, args);
          } catch (error) {
            finish();
            throw error;
          }
          if (result && typeof result.then === 'function') return result.finally(finish);
          finish();
          return result && typeof result === 'object' && !Array.isArray(result) ? timed(category, result) : result;
        };
      },
    });
  return { totals, counts, byMethod, timed };
}

async function loadParts() {
  const index = await import(dist('src/index.js'));
  const testing = await import(dist('src/testing/index.js'));
  const { GitWorkspace } = await import(dist('src/adapters/workspace/git-workspace.js'));
  const { BwrapRunner, detectSandbox } = await import(dist('src/adapters/command-runner/bwrap-runner.js'));
  const registry = index.loadRegistry(readFileSync(join(root, 'registry.yaml'), 'utf8'));
  const pattern = registry.value.patterns.find((entry) => entry.id === 'daily-triage');
  return { ...index, ...testing, GitWorkspace, BwrapRunner, detectSandbox, pattern };
}

/** One tick over `repo` with fresh memory ports (no open proposal from the first tick); returns its split in ms. */
async function splitTick(parts, repo, sandboxStartMs) {
  const plan = parts.buildPlan(parts.pattern, { level: 'L2', overrides: { maxAttempts: 1, verify: [VERIFY], checker: false, dailyTokenCap: 10_000_000 } });
  const memory = parts.createMemoryPorts({ plan });
  const timer = createTimer();
  const workspace = timer.timed('git', new parts.GitWorkspace({ root: repo, patternId: plan.pattern.id, clock: parts.systemClock ?? memory.clock }));
  const backend = timer.timed('model', new parts.ScriptedEditBackend({ edit: async (files) => files.write('src/example.txt', `answer: ${Math.random()}\n`) }));
  const commands = timer.timed('test', new parts.BwrapRunner());
  const engine = new parts.LoopEngine(plan, { ...memory, workspace, backend, commands });
  const cpuBefore = cpuMs();
  gitProcesses.length = 0;
  const started = now();
  const result = await engine.tick();
  const wallMs = now() - started;
  const cpu = cpuMs() - cpuBefore;
  if (result.kind !== 'proposed') throw new Error(`bench-tick-split: expected a proposed tick, got ${result.kind}: ${JSON.stringify(result.steps?.map((step) => step.note))}`);
  const sandboxMs = Math.min(timer.totals.test, timer.counts.commandRuns * sandboxStartMs);
  const split = { model: timer.totals.model, test: timer.totals.test - sandboxMs, git: timer.totals.git, sandbox: sandboxMs };
  const other = wallMs - split.model - split.test - split.git - split.sandbox;
  const processes = gitProcesses.splice(0);
  if (process.env['BENCH_GIT_TRACE']) for (const { args, start, ms } of processes) console.error(`${Math.round(start - started)}+${Math.round(ms)} git ${args.join(' ').slice(0, 160)}`);
  const gitCommands = new Map();
  for (const { command, ms } of processes) gitCommands.set(command, [(gitCommands.get(command)?.[0] ?? 0) + 1, (gitCommands.get(command)?.[1] ?? 0) + ms]);
  const gitSteps = [...timer.byMethod].filter(([key]) => key.startsWith('workspace.')).sort((a, b) => b[1] - a[1]).slice(0, 6);
  return { wallMs, cpuMs: cpu, ...split, other, commandRuns: timer.counts.commandRuns, gitSteps, gitProcesses: processes.length, gitCommands: [...gitCommands].sort((a, b) => b[1][1] - a[1][1]) };
}

/** The verification command alone in bubblewrap at the repository, and bubblewrap running `true` in an empty directory (medians of `runs`). */
async function referenceRuns(parts, repo, empty, runs) {
  const runner = new parts.BwrapRunner();
  const time = async (command, cwd) => {
    const samples = [];
    for (let run = 0; run < runs; run++) {
      const started = now();
      const evidence = await runner.run({ command, timeoutMs: 120_000 }, { cwd, timeoutMs: 120_000 });
      samples.push(now() - started);
      if (evidence.exitCode !== 0) throw new Error(`bench-tick-split: \`${command}\` exited ${evidence.exitCode}: ${evidence.output}`);
    }
    return median(samples);
  };
  return { verifyMs: await time(VERIFY, repo), sandboxStartMs: await time('true', empty) };
}

/** Both repositories; null when bubblewrap is not usable here. */
export async function benchTickSplit({ bigFiles = 20_000, checkMs = 1000, referenceRunCount = 3, repeat = 3 } = {}) {
  traceGitSpawns();
  const parts = await loadParts();
  if ((await parts.detectSandbox()).kind !== 'bwrap') return null;
  const scratch = mkdtempSync(join(tmpdir(), 'bench-tick-split-'));
  const savedStateHome = process.env['XDG_STATE_HOME'];
  process.env['XDG_STATE_HOME'] = join(scratch, 'state'); // the worktrees, outside the repositories and the user's home
  try {
    const rows = [];
    for (const [name, files] of [['small', 0], [`${bigFiles.toLocaleString('en-US')} files`, bigFiles]]) {
      const repo = makeRepo(scratch, files, checkMs);
      const empty = mkdtempSync(join(scratch, 'empty-'));
      const reference = await referenceRuns(parts, repo, empty, referenceRunCount);
      const first = await splitTick(parts, repo, reference.sandboxStartMs);
      const again = [];
      for (let run = 0; run < repeat; run++) again.push(await splitTick(parts, repo, reference.sandboxStartMs));
      const walls = again.map((tick) => tick.wallMs);
      const second = again.find((tick) => tick.wallMs === median(walls));
      rows.push({ name, ...reference, first, second, secondRange: [Math.min(...walls), Math.max(...walls)], ratio: second.wallMs / reference.verifyMs });
    }
    return rows;
  } finally {
    if (savedStateHome === undefined) delete process.env['XDG_STATE_HOME'];
    else process.env['XDG_STATE_HOME'] = savedStateHome;
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The bench's lines. */
export function formatTickSplit(rows) {
  const ms = (value) => `${Math.round(value)} ms`;
  const line = (label, tick) =>
    `  ${label.padEnd(27)} wall ${ms(tick.wallMs).padStart(8)} = model ${ms(tick.model)}, tests ${ms(tick.test)}, git/worktree ${ms(tick.git)}, sandbox start-up ${ms(tick.sandbox)} (${tick.commandRuns} command run(s)), other ${ms(tick.other)}; CPU ${ms(tick.cpuMs)}`;
  const lines = [`tick wall time split (instant model, \`${VERIFY}\` ≈ 1 s, L2, real git worktree, bubblewrap; load average ${loadavg().map((load) => load.toFixed(1)).join(' ')}):`];
  for (const row of rows) {
    lines.push(`${row.name} repository: one verification run alone ${ms(row.verifyMs)} (bubblewrap start-up ${ms(row.sandboxStartMs)})`);
    const runs = row.secondRange ? `, median of ${ms(row.secondRange[0])}…${ms(row.secondRange[1])}` : '';
    for (const [label, tick] of [['first tick (base runs):', row.first], ['second tick (base cached):', row.second]]) {
      lines.push(line(label, tick));
      lines.push(`  ${''.padEnd(27)} git/worktree by step: ${tick.gitSteps.map(([key, value]) => `${key.slice('workspace.'.length)} ${ms(value)}`).join(', ')}`);
      lines.push(`  ${''.padEnd(27)} ${tick.gitProcesses} git processes: ${tick.gitCommands.map(([command, [count, total]]) => `${command} ×${count} ${ms(total)}`).join(', ')}`);
    }
    lines.push(`  second tick / one verification run: ${row.ratio.toFixed(2)}×  (target ≤ 1.5×${runs})`);
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bigFiles = Number(process.argv[2] ?? 20_000);
  const repeat = Number(process.argv[3] ?? 3);
  const rows = await benchTickSplit({ bigFiles, repeat });
  console.log(rows ? formatTickSplit(rows).join('\n') : 'tick split: bubblewrap is not usable here, skipped');
}
