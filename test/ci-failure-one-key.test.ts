/**
 * One key per CI failure through the built CLI (`npm run build` first), in one real repository: a scheduled-style
 * tick of ci-sweeper runs its real default probe against a fake `gh` on PATH (the failing run of CI on main) and
 * proposes a fix; then the `workflow_run` event for the same failure goes through `ci event` (fake GitHub API on
 * 127.0.0.1) and `run --event-item`. The model is a fake OpenAI server answering as a model reading its prompt does:
 * triage names the first item it was shown, by key. The twin: a failure on another branch ticks. And a repository
 * whose delivery ledger holds a pull request recorded under the old key (`ci-run#<id>`) does not propose that run's
 * failure again; its twin (an old key for another run) does.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT, GIT_IDENTITY } from './ci/scratch-project.js';
import { startFakeGitHub, type FakeGitHub } from './fakes/fake-github-server.js';
import { startFakeOpenAIServer, type OpenAIReply } from './fakes/fake-openai-server.js';
import type { FakeServer, RecordedRequest } from './fakes/http-fake.js';

const run = promisify(execFile);
let root: string;
let cwd: string;
let github: FakeGitHub;
let model: FakeServer;
let env: Record<string, string>;

/** `gh` for the default probe: `run list` prints what its --jq filter keeps, `run view` the run and its failed log. */
const FAKE_GH = `#!/usr/bin/env node
const args = process.argv.slice(2);
const run = { databaseId: 4242, displayTitle: 'Tidy the login form', headBranch: 'main', url: 'https://github.com/acme/demo/actions/runs/4242', conclusion: 'failure', workflowName: 'CI' };
if (args[0] === 'run' && args[1] === 'list') process.stdout.write(JSON.stringify([run]) + '\\n');
else if (args[0] === 'run' && args[1] === 'view' && args.includes('--log-failed')) process.stdout.write('FAIL test/login.test.ts\\n');
else if (args[0] === 'run' && args[1] === 'view') process.stdout.write(JSON.stringify(run) + '\\n');
else process.exit(1);
`;

type Message = { role: string; content: unknown };

/** Triage acts on the first item its prompt shows; the implementer writes one file; the checker approves. */
function answer(request: RecordedRequest): OpenAIReply {
  const body = request.body as { messages: Message[]; tools?: Array<{ function: { name: string } }> };
  const user = body.messages.filter((message) => message.role === 'user').map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content))).join('\n');
  const tools = (body.tools ?? []).map((tool) => tool.function.name);
  const usage = { input: 500, output: 20 };
  if (user.includes('Changed files:')) return { text: 'Reviewed.\n## Verdict: APPROVE\n- one small change', usage };
  if (tools.includes('write_file')) {
    return body.messages.at(-1)?.role === 'tool'
      ? { toolCalls: [{ name: 'done', arguments: { result: 'Fixed the failing check.' } }], usage }
      : { toolCalls: [{ name: 'write_file', arguments: { path: 'src/example.ts', content: 'export const answer = 43;\n' } }], usage };
  }
  const key = /key: (\S+)/.exec(user)?.[1] ?? 'none';
  const triage = { decision: 'act', summary: `CI is red: ${key}.`, findings: [], items: [{ key, title: 'CI is red', paths: ['src/example.ts'] }] };
  return { toolCalls: [{ name: 'done', arguments: { result: JSON.stringify(triage) } }], usage };
}

interface TickJson {
  kind: string;
  item?: { key: string };
  degradedReason?: string;
}

async function cli(args: string[], extra: Record<string, string> = {}, directory = cwd): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [join(CHECKOUT, 'bin', 'loop-runtime.js'), ...args], { cwd: directory, env: { ...env, ...extra } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: Number(error.code), stdout: error.stdout, stderr: error.stderr }),
  );
}

async function tick(args: string[], directory = cwd): Promise<TickJson> {
  const result = await cli(['run', 'ci-sweeper', ...args, '--json'], {}, directory);
  expect(result.code, result.stderr).toBe(0);
  const ticks = (JSON.parse(result.stdout) as { data: { ticks: TickJson[] } }).data.ticks;
  expect(ticks).toHaveLength(1);
  return ticks[0]!;
}

/** `ci event` on a failed run's payload, as the workflow's event step runs it; returns the item file. */
async function eventItem(id: number, branch: string): Promise<string> {
  const directory = join(root, `event-${id}`);
  await mkdir(directory);
  const payload = { action: 'completed', workflow_run: { id, name: 'CI', head_branch: branch, head_sha: `sha${id}`, html_url: `https://github.com/acme/demo/actions/runs/${id}`, conclusion: 'failure' } };
  await writeFile(join(directory, 'event.json'), JSON.stringify(payload));
  const result = await cli(['ci', 'event', '--loop', 'ci-sweeper'], { GITHUB_EVENT_NAME: 'workflow_run', GITHUB_EVENT_PATH: join(directory, 'event.json'), RUNNER_TEMP: directory });
  expect(result.code, result.stderr).toBe(0);
  return join(directory, 'loop-runtime-event.json');
}

const triageCalls = () => model.requests.filter((request) => !JSON.stringify(request.body).includes('write_file') && !JSON.stringify(request.body).includes('Changed files:')).length;
const implementerCalls = () => model.requests.filter((request) => JSON.stringify(request.body).includes('write_file')).length;

/** A repository with ci-sweeper on the openai backend (the fake server), at L2, no verification commands. */
async function repository(name: string): Promise<string> {
  const directory = join(root, name);
  await mkdir(directory);
  const git = (...args: string[]) => run('git', args, { cwd: directory, env: { ...process.env, ...GIT_IDENTITY } });
  await git('init', '--quiet', '--initial-branch=main');
  await run(join(CHECKOUT, 'node_modules', '.bin', 'loop-init'), [directory, '--pattern', 'daily-triage', '--tool', 'claude'], { cwd: directory });
  const loopMd = await readFile(join(directory, 'LOOP.md'), 'utf8');
  const backend = `backend: openai, model: gpt-4o-mini, backendOptions: { baseURL: "${model.url}/v1", apiKey: test-key }`;
  await writeFile(join(directory, 'LOOP.md'), `---\nloop-runtime:\n  loops:\n    ci-sweeper: { ${backend}, level: L2, verify: [] }\n---\n${loopMd}`);
  await mkdir(join(directory, 'src'));
  await writeFile(join(directory, 'src', 'example.ts'), 'export const answer = 42;\n');
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'initial');
  return directory;
}

/** A pull request an older version recorded for run `id` of the failing CI, under its old key `ci-run#<id>`. */
async function legacyProposal(directory: string, id: number): Promise<void> {
  const entry = { key: `ci-sweeper:ci-run#${id}`, pattern: 'ci-sweeper', itemKey: `ci-run#${id}`, branch: `loop/ci-sweeper/ci-run-${id}`, kind: 'pull-request', url: 'https://github.com/acme/demo/pull/9', at: '2026-11-26T10:00:00Z' };
  await mkdir(join(directory, '.loop-runtime'), { recursive: true });
  await writeFile(join(directory, '.loop-runtime', 'deliveries.json'), `${JSON.stringify({ version: 1, deliveries: [entry] }, null, 2)}\n`);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ci-failure-one-key-'));
  github = await startFakeGitHub('acme/demo');
  for (const id of [4243, 4244]) github.runJobs.set(id, [{ id: id * 10, name: 'test', conclusion: 'failure', log: `FAIL test/login.test.ts in run ${id}\n` }]);
  model = await startFakeOpenAIServer(Array.from({ length: 40 }, () => answer));
  const bin = join(root, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'gh'), FAKE_GH);
  await chmod(join(bin, 'gh'), 0o755);
  cwd = await repository('repo');
  env = { ...process.env, ...GIT_IDENTITY, NO_COLOR: '1', PATH: `${bin}:${process.env.PATH}`, GITHUB_REPOSITORY: 'acme/demo', GITHUB_API_URL: github.url, GH_TOKEN: 'test-token' } as Record<string, string>;
});

afterAll(async () => {
  await github?.close();
  await model?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('a scheduled tick and an event for one CI failure', () => {
  it('the probe-driven tick proposes ci:CI@main; the event for the same failure reports the open proposal; another branch ticks', async () => {
    const scheduled = await tick([]);
    expect(['proposed', 'escalated']).toContain(scheduled.kind);
    expect(scheduled.item?.key).toBe('ci:CI@main');
    expect(implementerCalls()).toBeGreaterThan(0);

    const implementedBefore = implementerCalls();
    const triagedBefore = triageCalls();
    const same = await tick(['--event-item', await eventItem(4243, 'main')]);
    expect(same).toMatchObject({ kind: 'report', degradedReason: 'every item has used its attempts or has an open proposal (ci:CI@main)' });
    expect(triageCalls()).toBe(triagedBefore + 1);
    expect(implementerCalls()).toBe(implementedBefore);

    const twin = await tick(['--event-item', await eventItem(4244, 'release')]);
    expect(['proposed', 'escalated']).toContain(twin.kind);
    expect(twin.item?.key).toBe('ci:CI@release');
    expect(implementerCalls()).toBeGreaterThan(implementedBefore);
  });
});

describe('a proposal stored under the old key (ci-run#<id>) in an existing delivery ledger', () => {
  it('still holds the same failure back: the probe-driven tick reports it instead of proposing again', async () => {
    const directory = await repository('legacy');
    await legacyProposal(directory, 4242);
    const implementedBefore = implementerCalls();
    expect(await tick([], directory)).toMatchObject({ kind: 'report', degradedReason: 'every item has used its attempts or has an open proposal (ci:CI@main)' });
    expect(implementerCalls()).toBe(implementedBefore);
  });

  it('the twin: an old key for another run does not', async () => {
    const directory = await repository('legacy-other-run');
    await legacyProposal(directory, 4100);
    const implementedBefore = implementerCalls();
    const result = await tick([], directory);
    expect(['proposed', 'escalated']).toContain(result.kind);
    expect(result.item?.key).toBe('ci:CI@main');
    expect(implementerCalls()).toBeGreaterThan(implementedBefore);
  });
});
