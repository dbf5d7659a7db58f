/**
 * A burst of five `workflow_run` failures of one workflow on one branch, through the built CLI (`npm run build`
 * first): `ci event` turns each payload into its item (five runs, one key: ci:CI@main) against the fake GitHub API,
 * then `run ci-sweeper --event-item` ticks on it with the mock backend in one repository.
 * Which mechanism holds: on GitHub the job's concurrency group (cancel-in-progress: false) runs them one after another
 * — the first proposes, the later ones find its proposal open (escalated, waiting on a human) and report. Started all
 * at once (a runner that shares a checkout), the loop's lease refuses the ones that overlap (exit 4) and the item's open
 * proposal the ones after: either way the implementer runs once.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT, GIT_IDENTITY } from './ci/scratch-project.js';
import { startFakeGitHub, type FakeGitHub } from './fakes/fake-github-server.js';

let root: string;
let github: FakeGitHub;

interface TickJson {
  kind: string;
  item?: { key: string };
  degradedReason?: string;
}

/** `run --json`'s ticks, read in one place (the CLI's --json shape may gain an envelope). */
function ticksOf(stdout: string): TickJson[] {
  const parsed = JSON.parse(stdout) as { ticks?: TickJson[]; data?: { ticks?: TickJson[] } };
  return parsed.ticks ?? parsed.data?.ticks ?? [];
}

function cli(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(CHECKOUT, 'bin', 'loop-runtime.js'), ...args], { cwd, env: { ...process.env, ...GIT_IDENTITY, NO_COLOR: '1', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

async function repository(name: string): Promise<string> {
  const directory = join(root, name);
  await mkdir(directory);
  const git = (...args: string[]) => new Promise((resolve, reject) => execFile('git', args, { cwd: directory, env: { ...process.env, ...GIT_IDENTITY } }, (error) => (error ? reject(error) : resolve(null))));
  await git('init', '--quiet', '--initial-branch=main');
  await new Promise((resolve, reject) => execFile(join(CHECKOUT, 'node_modules', '.bin', 'loop-init'), [directory, '--pattern', 'daily-triage', '--tool', 'claude'], { cwd: directory }, (error) => (error ? reject(error) : resolve(null))));
  const loopMd = await readFile(join(directory, 'LOOP.md'), 'utf8');
  await writeFile(join(directory, 'LOOP.md'), `---\nloop-runtime:\n  loops:\n    ci-sweeper: { backend: mock, verify: [] }\n---\n${loopMd}`);
  await mkdir(join(directory, 'src'));
  await writeFile(join(directory, 'src', 'example.ts'), 'export const answer = 42;\n');
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'initial');
  return directory;
}

/** `ci event` on a failed run's payload, as the Action's event step runs it; returns the item file. */
async function eventItem(cwd: string, run: number): Promise<string> {
  const directory = join(root, `${cwd.split('/').pop()}-event-${run}`);
  await mkdir(directory);
  const payload = { action: 'completed', workflow_run: { id: run, name: 'CI', head_branch: 'main', head_sha: `sha${run}`, html_url: `https://github.com/acme/demo/actions/runs/${run}`, conclusion: 'failure' } };
  await writeFile(join(directory, 'event.json'), JSON.stringify(payload));
  const result = await cli(cwd, ['ci', 'event', '--loop', 'ci-sweeper'], { GITHUB_EVENT_NAME: 'workflow_run', GITHUB_EVENT_PATH: join(directory, 'event.json'), GITHUB_REPOSITORY: 'acme/demo', GITHUB_API_URL: github.url, GH_TOKEN: 'test-token', RUNNER_TEMP: directory });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain('Work item: ci:CI@main');
  return join(directory, 'loop-runtime-event.json');
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ci-event-burst-'));
  github = await startFakeGitHub('acme/demo');
  for (const run of [501, 502, 503, 504, 505, 601, 602, 603, 604, 605]) github.runJobs.set(run, [{ id: run * 10, name: 'test', conclusion: 'failure', log: `FAIL run ${run}\n` }]);
});

afterAll(async () => {
  await github?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('a burst of five failure events', () => {
  it('run one after another (the concurrency group): one tick proposes, four report the open proposal', async () => {
    const cwd = await repository('serial');
    const items = [];
    for (const run of [501, 502, 503, 504, 505]) items.push(await eventItem(cwd, run));
    const ticks: TickJson[] = [];
    for (const item of items) {
      const result = await cli(cwd, ['run', 'ci-sweeper', '--level', 'L2', '--event-item', item, '--json']);
      expect(result.code, result.stderr).toBe(0);
      ticks.push(...ticksOf(result.stdout));
    }
    expect(ticks.map((tick) => tick.kind)).toEqual(['escalated', 'report', 'report', 'report', 'report']);
    expect(ticks[0]!.item?.key).toBe('ci:CI@main');
    for (const tick of ticks.slice(1)) expect(tick.degradedReason).toBe('every item has used its attempts or has an open proposal (ci:CI@main)');
  });

  it('started all at once: the lease and the open proposal let the implementer run once', async () => {
    const cwd = await repository('concurrent');
    const items = await Promise.all([601, 602, 603, 604, 605].map((run) => eventItem(cwd, run)));
    const results = await Promise.all(items.map((item) => cli(cwd, ['run', 'ci-sweeper', '--level', 'L2', '--event-item', item, '--json'])));
    const outcomes = results.map((result) => (result.code === 4 ? 'lease-held' : ticksOf(result.stdout).map((tick) => tick.kind).join(',')));
    expect(outcomes.filter((outcome) => outcome === 'escalated'), outcomes.join(' ')).toHaveLength(1);
    for (const outcome of outcomes) expect(['escalated', 'report', 'lease-held']).toContain(outcome);
  });
});
