/**
 * The Action (action.yml), run locally: its composite steps' `run:` scripts in order, the way a runner runs them
 * (test/ci/actions-runner.ts), on a real repository cloned from a bare origin, with the mock backend, and with
 * `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `GITHUB_ENV` and `GITHUB_EVENT_PATH` set to temp files. The built CLI of
 * this checkout is the Action's own copy (`GITHUB_ACTION_PATH`), so `npm run build` must have run.
 * The outputs are read back from the summary step, as `${{ steps.summary.outputs.* }}` maps them.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runJob, type JobResult, type WorkflowStep, hostedRunnerEnv } from './ci/actions-runner.js';
import { checkout, CHECKOUT, GIT_IDENTITY } from './ci/scratch-project.js';
import { startFakeGitHub, type FakeGitHub } from './fakes/fake-github-server.js';

const run = promisify(execFile);

interface CompositeStep extends WorkflowStep {
  with?: Record<string, string>;
  shell?: string;
}

let root: string;
let origin: string;
let steps: CompositeStep[];
let defaults: Record<string, string>;
let runnerEnv: Record<string, string>;
let clones = 0;
let github: FakeGitHub;

/** The composite's steps with `${{ inputs.* }}` resolved (what the runner does before it runs them). */
function withInputs(inputs: Record<string, string>): WorkflowStep[] {
  const values = { ...defaults, ...inputs };
  const resolve = (text: string) => text.replace(/\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}/g, (_, name: string) => values[name] ?? '');
  return steps.map(({ with: _with, shell: _shell, ...step }) => ({
    ...step,
    ...(step.env ? { env: Object.fromEntries(Object.entries(step.env).map(([name, value]) => [name, resolve(value)])) } : {}),
  }));
}

async function runAction(inputs: Record<string, string>, event: object, actor = 'maintainer', eventName = 'issues'): Promise<JobResult & { cwd: string }> {
  clones += 1;
  const cwd = await checkout(origin, join(root, `runner-${clones}`));
  const eventPath = join(root, `event-${clones}.json`);
  await writeFile(eventPath, JSON.stringify(event));
  const result = await runJob({ steps: withInputs(inputs) }, { cwd, env: { ...runnerEnv, GITHUB_EVENT_PATH: eventPath, GITHUB_EVENT_NAME: eventName, GITHUB_ACTOR: actor } });
  return { ...result, cwd };
}

const explain = (result: JobResult) => result.steps.map((step) => `--- ${step.label} (${step.status} ${step.exitCode})\n${step.output}`).join('\n');

beforeAll(async () => {
  const action = parse(await readFile(join(CHECKOUT, 'action.yml'), 'utf8')) as { inputs: Record<string, { default?: string }>; runs: { steps: CompositeStep[] } };
  steps = action.runs.steps;
  defaults = Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [name, input.default ?? '']));
  root = await mkdtemp(join(tmpdir(), 'ci-action-run-'));
  origin = join(root, 'origin.git');
  const work = join(root, 'work');
  await mkdir(work);
  const git = (...args: string[]) => run('git', args, { cwd: work, env: { ...process.env, ...GIT_IDENTITY } });
  await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  await git('init', '--quiet', '--initial-branch=main');
  await run(join(CHECKOUT, 'node_modules', '.bin', 'loop-init'), [work, '--pattern', 'daily-triage', '--tool', 'claude'], { cwd: work });
  const loopMd = await readFile(join(work, 'LOOP.md'), 'utf8');
  await writeFile(join(work, 'LOOP.md'), `---\nloop-runtime:\n  loops:\n    daily-triage: { backend: mock }\n---\n${loopMd}`);
  await mkdir(join(work, 'src'));
  await writeFile(join(work, 'src', 'example.ts'), 'export const answer = 42;\n');
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'initial');
  await git('remote', 'add', 'origin', origin);
  await git('push', '--quiet', 'origin', 'main');
  github = await startFakeGitHub('acme/demo');
  github.permissions.set('maintainer', 'write');
  github.permissions.set('reader', 'read');
  github.permissions.set('renovate[bot]', 'write');
  const emptyGitConfig = join(root, 'gitconfig');
  await writeFile(emptyGitConfig, '');
  await mkdir(join(root, 'tmp'));
  runnerEnv = {
    ...hostedRunnerEnv(root),
    GITHUB_ACTION_PATH: CHECKOUT,
    GIT_CONFIG_GLOBAL: emptyGitConfig,
    GIT_CONFIG_NOSYSTEM: '1',
    GITHUB_REPOSITORY: 'acme/demo',
    GITHUB_API_URL: github.url,
    GH_TOKEN: 'test-token',
  };
});

afterAll(async () => {
  await github?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the Action, its composite steps run locally', () => {
  it('event mode ticks the loop now: outputs read back, summary written, state pushed to the state branch', async () => {
    const result = await runAction({ loop: 'daily-triage', mode: 'event' }, { action: 'opened', issue: { number: 1 } });
    expect(result.failed, explain(result)).toBe(false);
    expect(result.steps.map((step) => `${step.status}:${step.exitCode ?? '-'}`), explain(result)).toEqual(['uses-skipped:-', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:0', 'ran:0']);
    expect(result.outputs.due).toEqual({});
    // The built checkout is used as it is: the install step must not reinstall or rebuild it (under npm test that
    // would pull node_modules and dist/ from under every other test file).
    expect(result.steps[1]!.output).not.toMatch(/added \d+ packages|> loop-runtime@/);
    const outputs = result.outputs.summary!;
    expect(Object.keys(outputs)).toEqual(['outcome', 'tokens', 'cost-usd', 'pull-request-url', 'escalated']);
    expect(outputs.outcome).toMatch(/^(report|noop|proposed|escalated)$/);
    expect(Number(outputs.tokens)).toBeGreaterThanOrEqual(0);
    expect(outputs.escalated).toBe(outputs.outcome === 'escalated' ? 'true' : 'false');
    expect(result.summary).toContain('### loop-runtime');
    expect(result.summary).toContain('daily-triage');
    expect(result.outputs.gate).toMatchObject({ allowed: 'true', reason: 'maintainer has write access' });
    const branches = await run('git', ['branch', '--list', 'loop-runtime-state'], { cwd: origin });
    expect(branches.stdout).toContain('loop-runtime-state');
  });

  it('event mode from an actor with read access: the gate skips the tick before it runs; green, outcome skipped', async () => {
    const result = await runAction({ loop: 'daily-triage', mode: 'event', 'state-branch': '' }, { action: 'opened', sender: { type: 'User' } }, 'reader');
    expect(result.failed, explain(result)).toBe(false);
    expect(result.outputs.gate).toMatchObject({ allowed: 'false' });
    expect(result.outputs.gate!.reason).toContain('permission: reader has read access to acme/demo');
    expect(result.steps[7]!.output).toContain('Skipped by the trigger gate or the event.');
    expect(result.outputs.summary).toMatchObject({ outcome: 'skipped', tokens: '0', escalated: 'false' });
    expect(result.summary).toContain('trigger gate');
  });

  it('a bad mode input stops before the tick with an error naming the fix; the summary still reports no-output and fails', async () => {
    const result = await runAction({ loop: 'daily-triage', mode: 'sometimes', 'state-branch': '' }, {});
    expect(result.failed).toBe(true);
    const check = result.steps[3]!;
    expect(check.exitCode).toBe(3);
    expect(check.output).toContain("input mode is 'sometimes', not schedule or event. To fix:");
    expect(result.steps.map((step) => step.status)).toEqual(['uses-skipped', 'ran', 'ran', 'ran', 'skipped', 'skipped', 'skipped', 'skipped', 'ran', 'ran']);
    expect(result.outputs.summary).toMatchObject({ outcome: 'no-output', tokens: '0', escalated: 'false' });
    expect(result.summary).toContain('no JSON output');
  });

  it('schedule mode right after a tick: the due check says due=false, the state pull and the tick are skipped, outcome not-due', async () => {
    // The event-mode test above ticked daily-triage (cadence 1d-2h) and pushed its state moments ago.
    const result = await runAction({ loop: 'daily-triage', mode: 'schedule' }, {}, 'maintainer', 'schedule');
    expect(result.failed, explain(result)).toBe(false);
    expect(result.outputs.due, explain(result)).toEqual({ due: 'false', loops: '' });
    expect(result.steps.map((step) => step.status), explain(result)).toEqual(['uses-skipped', 'ran', 'ran', 'ran', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'ran']);
    expect(result.outputs.summary).toMatchObject({ outcome: 'not-due', tokens: '0', escalated: 'false' });
    expect(result.summary).toContain('loop-runtime: nothing due');
  });

  it('its twin, schedule mode with no state branch (the loop never ran): due=true, the tick runs', async () => {
    const result = await runAction({ loop: 'daily-triage', mode: 'schedule', 'state-branch': '' }, {}, 'maintainer', 'schedule');
    expect(result.failed, explain(result)).toBe(false);
    expect(result.outputs.due).toEqual({ due: 'true', loops: 'daily-triage' });
    expect(result.steps.map((step) => step.status)).toEqual(['uses-skipped', 'ran', 'ran', 'ran', 'ran', 'ran', 'ran', 'ran', 'ran', 'ran']);
    expect(result.outputs.summary!.outcome).not.toBe('not-due');
  });
});
