/**
 * The generated tick step on a cancelled run: GitHub's runner sends SIGINT, then SIGTERM, to the step's shell only.
 * A real bash runs the step's script with a stand-in `loop-runtime` on PATH that settles on a signal and exits
 * 128 + n (as loop-runtime does); the shell must forward the signal and report the stand-in's code. Its twin: with
 * no signal, the stand-in's own exit code comes through.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { githubWorkflow, type WorkflowLoop } from './github-workflow.js';

const MINUTE = 60_000;
const LOOP: WorkflowLoop = { id: 'daily-triage', cadence: { text: '1d-2h', minIntervalMs: 120 * MINUTE, maxIntervalMs: 1440 * MINUTE }, backend: 'openai', delivery: 'local', timeoutMs: 20 * MINUTE, probeCommands: [], sandbox: false };
const scratch = mkdtempSync(join(tmpdir(), 'tick-step-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A stand-in loop-runtime: writes `ready`, then settles on SIGINT/SIGTERM (writes `settled-<signal>`) and exits 128 + n; exits `code` at once when `code` is set. */
const STAND_IN = `#!/usr/bin/env node
const { writeFileSync } = require('node:fs');
const dir = process.env.STAND_IN_DIR;
if (process.env.STAND_IN_EXIT) process.exit(Number(process.env.STAND_IN_EXIT));
const keep = setInterval(() => {}, 1000);
for (const [name, number] of [['SIGINT', 2], ['SIGTERM', 15]]) {
  process.on(name, () => { writeFileSync(dir + '/settled-' + name, ''); clearInterval(keep); process.exitCode = 128 + number; });
}
writeFileSync(dir + '/ready', String(process.pid));
`;

function tickScript(): { script: string; timeoutMinutes: number; jobMinutes: number } {
  const text = githubWorkflow({ loops: [LOOP], install: { loopRuntime: { kind: 'package', spec: 'github:example/loop-runtime#0123456789abcdef0123456789abcdef01234567' }, project: null }, stateBranch: null });
  const job = (parse(text) as { jobs: Record<string, { 'timeout-minutes': number; steps: Array<{ id?: string; run?: string; 'timeout-minutes'?: number }> }> }).jobs['daily-triage']!;
  const step = job.steps.find((candidate) => candidate.id === 'tick')!;
  return { script: step.run!, timeoutMinutes: step['timeout-minutes']!, jobMinutes: job['timeout-minutes'] };
}

async function runStep(name: string, options: { signal?: NodeJS.Signals; exit?: number }): Promise<{ output: string; dir: string }> {
  const dir = mkdtempSync(join(scratch, `${name}-`));
  writeFileSync(join(dir, 'loop-runtime'), STAND_IN);
  chmodSync(join(dir, 'loop-runtime'), 0o755);
  const env = { ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}`, RUNNER_TEMP: dir, GITHUB_OUTPUT: join(dir, 'output'), GITHUB_EVENT_NAME: 'workflow_dispatch', STAND_IN_DIR: dir, ...(options.exit !== undefined ? { STAND_IN_EXIT: String(options.exit) } : {}) };
  // As the runner runs a `run:` step: bash --noprofile --norc -eo pipefail {0}.
  writeFileSync(join(dir, 'step.sh'), tickScript().script);
  const shell = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', join(dir, 'step.sh')], { env, stdio: 'ignore' });
  const exited = new Promise<number | null>((done) => shell.on('exit', done));
  if (options.signal) {
    let ended = false;
    void exited.then(() => (ended = true));
    // The stand-in says it runs by a file (its output goes to the step's JSON file).
    while (!existsSync(join(dir, 'ready'))) {
      if (ended) throw new Error('the step ended before the tick started');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    shell.kill(options.signal);
  }
  expect(await exited).toBe(0);
  return { output: readFileSync(join(dir, 'output'), 'utf8'), dir };
}

describe('the tick step on a cancelled run', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('forwards %s to loop-runtime and records its exit code %i', async (signal, code) => {
    const { output, dir } = await runStep(signal, { signal });
    expect(existsSync(join(dir, `settled-${signal}`))).toBe(true);
    expect(output).toBe(`exit-code=${code}\n`);
  });

  it('records the exit code of a tick nobody stopped', async () => {
    const { output } = await runStep('plain', { exit: 5 });
    expect(output).toBe('exit-code=5\n');
  });

  it('ends the tick step before the job, so the always() steps still run after a timed-out tick', () => {
    const { timeoutMinutes, jobMinutes } = tickScript();
    expect(timeoutMinutes).toBeGreaterThanOrEqual(LOOP.timeoutMs / MINUTE);
    expect(jobMinutes - timeoutMinutes).toBeGreaterThanOrEqual(5);
  });
});
