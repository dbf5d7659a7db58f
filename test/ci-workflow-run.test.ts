/**
 * The workflow `ci init` writes, executed: a scratch team repository (real
 * git, real loop-init scaffolding, loop-runtime as a devDependency) gets its
 * workflow from the real `ci init`, and each job's `run:` steps execute in
 * order with bash in a fresh shallow clone, as on a hosted runner
 * (test/ci/actions-runner.ts: RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_PATH,
 * GITHUB_STEP_SUMMARY, CI=true, `if: always()`).
 *
 * What stands in for what cannot run here, and nothing else:
 * - `uses:` steps are not run: the clone is the checkout, and node is present.
 * - `npm ci` runs for real, offline (`npm_config_offline=true`): the scratch
 *   repository depends on an `npm pack` tarball of this checkout, with a lock
 *   file naming loop-runtime's dependencies by registry URL and integrity so
 *   npm takes their tarballs from this machine's npm cache
 *   (test/ci/scratch-project.ts explains why a bare `file:` spec is not enough).
 * - `sudo`, `apt-get` and `npm install --global` are PATH shims that record
 *   the call and install nothing (the runner is root; this test must not
 *   install packages). So `claude` stays missing: exactly the failure CI must show.
 * - Loops that should tick use the mock backend (LOOP.md `backend: mock`);
 *   probes are `echo work`, so no probe touches the network.
 *
 * Needs `dist/` (built by `npm test`; run `npx tsc -p tsconfig.build.json`).
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { validateWorkflow } from '@action-validator/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runJob, type JobResult, type WorkflowJob, hostedRunnerEnv } from './ci/actions-runner.js';
import { checkout, packCheckout, scratchRepository } from './ci/scratch-project.js';

const run = promisify(execFile);
const WORK_PROBE = '      probes: [{ name: work, command: "echo work", found: non-empty }]\n';
const LOOPS = [
  '    daily-triage: { backend: mock }\n',
  `    ci-sweeper:\n      backend: mock\n      dailyTokenCap: 10\n${WORK_PROBE}`,
  `    dependency-sweeper:\n      backend: claude-code\n      verify: ["node --version"]\n${WORK_PROBE}`,
].join('');

let root: string;
let origin: string;
let workflowText: string;
let jobs: Record<string, WorkflowJob>;
let runnerEnv: Record<string, string>;
let clones = 0;

async function shim(directory: string, name: string, body: string): Promise<void> {
  await writeFile(join(directory, name), `#!/bin/sh\n${body}\n`);
  await chmod(join(directory, name), 0o755);
}

/** One job on a fresh runner: a new shallow clone, its own log of shimmed calls. */
async function runner(id: string, event: 'schedule' | 'workflow_dispatch'): Promise<JobResult & { calls: string[] }> {
  const index = (clones += 1);
  const calls = join(root, `calls-${index}.log`);
  await writeFile(calls, '');
  const cwd = await checkout(origin, join(root, `runner-${index}`));
  const result = await runJob(jobs[id]!, { cwd, env: { ...runnerEnv, GITHUB_EVENT_NAME: event, RUNNER_CALLS: calls } });
  return { ...result, calls: (await readFile(calls, 'utf8')).split('\n').filter(Boolean) };
}

/**
 * The quiet scheduled run of daily-triage, started once: its own case asserts the green job, and the due check
 * needs a daily-triage tick on the state branch moments old, which this run pushed (one job fewer than ticking again).
 */
let quietRun: Promise<JobResult & { calls: string[] }> | undefined;
const quiet = () => (quietRun ??= runner('daily-triage', 'schedule'));

const explain = (result: JobResult) => result.steps.map((step) => `--- ${step.label} (${step.status} ${step.exitCode})\n${step.output}`).join('\n');

const ranOrSkippedUses = (result: JobResult) => result.steps.map((step) => `${step.status}:${step.exitCode ?? '-'}`);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ci-workflow-run-'));
  await mkdir(join(root, 'pkg'));
  const tarball = await packCheckout(join(root, 'pkg'));
  ({ origin } = await scratchRepository(root, tarball, LOOPS));
  const work = join(root, 'work');
  // As a team would: install the devDependency, then run the installed copy.
  const offline = { ...process.env, CI: 'true', npm_config_offline: 'true', npm_config_update_notifier: 'false' };
  await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: work, env: offline });
  const cli = (...args: string[]) => run('npx', ['--no', 'loop-runtime', ...args], { cwd: work, env: offline });
  await cli('ci', 'init');
  workflowText = await readFile(join(work, '.github', 'workflows', 'loop-runtime.yml'), 'utf8');
  jobs = (parse(workflowText) as { jobs: Record<string, WorkflowJob> }).jobs;
  const git = (...args: string[]) => run('git', args, { cwd: work });
  await git('add', '-A');
  await git('-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', 'commit', '--quiet', '-m', 'ci init');
  await git('push', '--quiet', 'origin', 'main');
  // An earlier tick on another machine spent past ci-sweeper's 10-token cap and pushed its state
  // (a settled spend line in the journal, as a real tick writes it).
  const now = Date.now();
  const spend = { at: now, day: new Date(now).toISOString().slice(0, 10), patternId: 'ci-sweeper', tickId: 'tick-earlier', phase: 'triage', tokens: 2220, costUsd: null };
  await mkdir(join(work, '.loop-runtime'), { recursive: true });
  await writeFile(join(work, '.loop-runtime', 'spend.jsonl'), `${JSON.stringify(spend)}\n`);
  await cli('state', 'push');

  const shims = join(root, 'shims');
  await mkdir(shims);
  const realNpm = join(dirname(process.execPath), 'npm');
  await shim(shims, 'sudo', 'echo "sudo $*" >> "$RUNNER_CALLS"');
  await shim(shims, 'apt-get', 'echo "apt-get $*" >> "$RUNNER_CALLS"');
  await shim(shims, 'npm', `case " $* " in *" --global "*|*" -g "*) echo "npm $*" >> "$RUNNER_CALLS"; exit 0;; esac\nexec '${realNpm}' "$@"`);
  const emptyGitConfig = join(root, 'gitconfig');
  await writeFile(emptyGitConfig, '');
  await mkdir(join(root, 'tmp'));
  runnerEnv = {
    ...hostedRunnerEnv(root, shims),
    // Hosted runners have no git identity; loop-runtime must not need one.
    GIT_CONFIG_GLOBAL: emptyGitConfig,
    GIT_CONFIG_NOSYSTEM: '1',
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
  };
  const claude = await run('sh', ['-c', 'command -v claude || true'], { env: runnerEnv });
  expect(claude.stdout.trim(), 'the runner PATH must not hold a claude binary').toBe('');
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the generated workflow, executed step by step', () => {
  it('is a valid workflow (@action-validator/core) with one job per configured loop', () => {
    expect(validateWorkflow(workflowText).errors).toEqual([]);
    expect(Object.keys(jobs)).toEqual(['daily-triage', 'ci-sweeper', 'dependency-sweeper']);
    for (const job of Object.values(jobs)) {
      expect(job.steps.filter((step) => step.uses).map((step) => step.uses)).toEqual(['actions/checkout@v4', 'actions/setup-node@v4']);
    }
    expect(workflowText).not.toMatch(/loop-runtime@\d/);
  });

  it.concurrent('a quiet run: every step runs, the job is green, the summary says ok', async () => {
    const result = await quiet();
    expect(ranOrSkippedUses(result), explain(result)).toEqual(['uses-skipped:-', 'uses-skipped:-', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:0']);
    expect(result.outputs.due, explain(result)).toEqual({ due: 'true', loops: 'daily-triage' });
    expect(result.failed).toBe(false);
    expect(result.calls).toEqual([]);
    expect(result.summary).toContain('**Result: ok**');
    expect(result.summary).toMatch(/\| daily-triage \| report \| \d+ \|/);
  });

  it.concurrent('a budget halt (spend pulled from the state branch, "Run workflow" ticks now): green, with a warning and a summary line', async () => {
    const result = await runner('ci-sweeper', 'workflow_dispatch');
    // "Run workflow" skips the due check (it ticks now) and the event's gate and item (it carries none; only users
    // with write access can dispatch), and runs every other step.
    expect(ranOrSkippedUses(result), explain(result)).toEqual(['uses-skipped:-', 'uses-skipped:-', 'skipped:-', 'ran:0', 'skipped:-', 'ran:0', 'skipped:-', 'ran:0', 'ran:0', 'ran:0']);
    expect(result.failed).toBe(false);
    expect(result.steps.at(-1)!.output).toMatch(/^::warning title=loop-runtime ci-sweeper::halted \(budget-exhausted\): Daily token cap reached/m);
    expect(result.summary).toContain('**Result: ok, with notices**');
    expect(result.summary).toMatch(/\| ci-sweeper \| ⚠ halted \| 0 \| halted \(budget-exhausted\)/);
  });

  it.concurrent('a loop whose backend is not installed turns the job red, after installing what it needs and writing the summary', async () => {
    const result = await runner('dependency-sweeper', 'schedule');
    expect(result.calls).toContain('npm install --global --no-audit --no-fund @anthropic-ai/claude-code@2');
    expect(result.calls).toContain('sudo apt-get install -y -qq bubblewrap');
    // Refused before the first model call as an unmet precondition (exit 3), which fails the job like exit 5.
    expect(ranOrSkippedUses(result), explain(result)).toEqual(['uses-skipped:-', 'uses-skipped:-', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:3']);
    expect(result.steps.at(-1)!.output).toContain('::error title=loop-runtime dependency-sweeper::dependency-sweeper cannot start; no model was called: dependency-sweeper runs claude-code, but claude is not in node_modules/.bin or on PATH.');
    expect(result.failed).toBe(true);
    expect(result.summary).toContain('**Result: failed (exit 3)**');
  });
});

describe('the due check, on a schedule right after a tick', () => {
  it('says due=false, and the job skips npm ci, the agent CLI, bubblewrap, the tick, the state push and the summary', async () => {
    // The quiet run above ticked daily-triage and pushed its state (awaited here, or started when this case runs
    // alone), so the next scheduled run finds a tick moments old on the state branch (cadence 1d-2h).
    const daily = await quiet();
    expect(daily.failed, explain(daily)).toBe(false);
    const next = await runner('daily-triage', 'schedule');
    expect(next.outputs.due, explain(next)).toEqual({ due: 'false', loops: '' });
    expect(ranOrSkippedUses(next), explain(next)).toEqual(['uses-skipped:-', 'uses-skipped:-', 'ran:0', 'skipped:-', 'skipped:-', 'skipped:-', 'skipped:-', 'skipped:-']);
    expect(next.failed).toBe(false);
    expect(next.calls).toEqual([]);
    expect(next.summary).toContain('loop-runtime: nothing due');
  });
});
