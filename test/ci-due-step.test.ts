/**
 * `loop-runtime ci due`, the scheduled job's first step, run for real: the built CLI in a fresh clone of a bare origin
 * (as actions/checkout leaves it), the last runs only on the state branch (pushed there by the real `state push`), the
 * time from a clock file. It must say due=false only when the state proves the loop ran recently; a manual run, a
 * loop that never ran, and a state branch it cannot read all say due=true (the last with a warning), so the heavy
 * steps it gates are never skipped on an unknown. Needs `npm run build`.
 */
import { execFile } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkout, CHECKOUT, GIT_IDENTITY } from './ci/scratch-project.js';

const run = promisify(execFile);
const CLI = join(CHECKOUT, 'bin', 'loop-runtime.js');
const NOW = Date.parse('2026-11-27T12:00:00Z');

let root: string;
let clones = 0;
let gitConfig: string;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, GIT_CONFIG_GLOBAL: gitConfig, GIT_CONFIG_NOSYSTEM: '1', NO_COLOR: '1', CI: 'true', ...GIT_IDENTITY, ...extra };
}

/** A team repository on a bare origin with one ci-sweeper loop (cadence 5m-15m, mock backend); `lastRun` on its state branch. */
async function repository(lastRun: number | null): Promise<string> {
  clones += 1;
  const origin = join(root, `origin-${clones}.git`);
  const work = join(root, `work-${clones}`);
  await mkdir(work);
  const git = (...args: string[]) => run('git', args, { cwd: work, env: env() });
  await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  await git('init', '--quiet', '--initial-branch=main');
  await run(join(CHECKOUT, 'node_modules', '.bin', 'loop-init'), [work, '--pattern', 'ci-sweeper', '--tool', 'claude'], { cwd: work });
  await writeFile(join(work, 'LOOP.md'), '---\nloop-runtime:\n  loops:\n    ci-sweeper: { backend: mock }\n---\n# CI sweeper\n');
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'initial');
  await git('remote', 'add', 'origin', origin);
  await git('push', '--quiet', 'origin', 'main');
  if (lastRun !== null) {
    // The tick's run-log line lives only on the state branch, as after a CI run: the checkout of main has none.
    const line = { run_id: new Date(lastRun).toISOString(), pattern: 'ci-sweeper', duration_s: 30, items_found: 0, actions_taken: 0, escalations: 0, tokens_estimate: 0, outcome: 'no-op' };
    await appendFile(join(work, 'loop-run-log.md'), `\n${JSON.stringify(line)}\n`);
    await run('node', [CLI, 'state', 'push'], { cwd: work, env: env() });
  }
  return origin;
}

async function due(origin: string, event: string, options: { breakRemote?: boolean } = {}): Promise<{ output: Record<string, string>; stdout: string; json: Record<string, unknown> }> {
  const cwd = await checkout(origin, join(root, `runner-${(clones += 1)}`));
  if (options.breakRemote) await run('git', ['remote', 'set-url', 'origin', join(root, 'gone.git')], { cwd });
  const clock = join(root, `clock-${clones}`);
  await writeFile(clock, new Date(NOW).toISOString());
  const outputFile = join(root, `output-${clones}`);
  await writeFile(outputFile, '');
  const common = { cwd, env: env({ GITHUB_EVENT_NAME: event, GITHUB_OUTPUT: outputFile }) };
  const { stdout } = await run('node', [CLI, 'ci', 'due', '--loop', 'ci-sweeper', '--clock-file', clock], common);
  const output = Object.fromEntries((await readFile(outputFile, 'utf8')).split('\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  const { stdout: jsonText } = await run('node', [CLI, 'ci', 'due', '--loop', 'ci-sweeper', '--clock-file', clock, '--json'], { ...common, env: { ...common.env, GITHUB_OUTPUT: join(root, 'ignored') } });
  return { output, stdout, json: (JSON.parse(jsonText) as { data: Record<string, unknown> }).data };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ci-due-step-'));
  gitConfig = join(root, 'gitconfig');
  await writeFile(gitConfig, '');
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('ci due, run for real against a state branch', () => {
  it('last run a minute ago on a 5m-15m loop: due=false, so the installs and the tick are skipped', async () => {
    const result = await due(await repository(NOW - 60_000), 'schedule');
    expect(result.output, result.stdout).toEqual({ due: 'false', loops: '' });
    expect(result.stdout).toContain('Nothing is due: the installs and the tick are skipped.');
    expect(result.stdout).toMatch(/ci-sweeper: not due — /);
    expect(result.json).toMatchObject({ due: false, basis: 'schedule', loops: [] });
  });

  it('its twin, last run an hour ago: due=true for ci-sweeper, by cadence', async () => {
    const result = await due(await repository(NOW - 60 * 60_000), 'schedule');
    expect(result.output).toEqual({ due: 'true', loops: 'ci-sweeper' });
    expect(result.stdout).toContain('Due: ci-sweeper (by cadence).');
    expect(result.json).toMatchObject({ due: true, basis: 'schedule', loops: ['ci-sweeper'] });
  });

  it('no state branch yet (the first run): due=true', async () => {
    const result = await due(await repository(null), 'schedule');
    expect(result.output).toEqual({ due: 'true', loops: 'ci-sweeper' });
    expect(result.json).toMatchObject({ basis: 'schedule' });
  });

  it('a state branch it cannot read: due=true with a warning naming why, never a silent skip', async () => {
    const result = await due(await repository(NOW - 60_000), 'schedule', { breakRemote: true });
    expect(result.output).toEqual({ due: 'true', loops: 'ci-sweeper' });
    expect(result.stdout).toMatch(/^::warning title=loop-runtime due check::The state branch could not be read \(Could not reach the remote "origin": .+\), so the last runs are unknown\. The job runs the tick/m);
    expect(result.json).toMatchObject({ due: true, basis: 'unknown' });
  });

  it('a manual run is always due, even right after a tick', async () => {
    const result = await due(await repository(NOW - 60_000), 'workflow_dispatch');
    expect(result.output).toEqual({ due: 'true', loops: 'ci-sweeper' });
    expect(result.json).toMatchObject({ due: true, basis: 'event' });
  });
});
