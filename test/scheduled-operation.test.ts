/**
 * Scheduled operation end to end: many processes racing for one loop's
 * lease, a killed lease holder, probes that spare the model, `run --due`
 * and `ci init` against real temporary git repositories.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MockBackend } from '../backends/mock/index.js';
import { main } from '../src/cli/main.js';
import { createLoopRuntime } from '../src/composition/create-runtime.js';
import { loadProject, resolvePlan } from '../src/project/load-project.js';
import { bundledChild } from './bundled-child.js';
import { cliJson } from './cli-json.js';

const ROOT = resolve(import.meta.dirname, '..');
/** The CLI from the current sources, bundled once for this file: each child is plain node running it. */
const ENTRY = await bundledChild(join(ROOT, 'test', 'schedule', 'cli-entry.ts'));
const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };
/** A probe that holds the tick (and so its lease) until the test creates the file `go`. */
const BLOCKING_PROBE = 'while [ ! -f go ]; do sleep 0.05; done; echo work';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function repo(loops: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'scheduled-'));
  dirs.push(dir);
  const settings = Object.entries(loops).map(([id, extra]) => `    ${id}:\n      level: L1\n${extra}`);
  await writeFile(join(dir, 'LOOP.md'), `---\nloop-runtime:\n  loops:\n${settings.join('')}---\n# Loops\n`);
  execFileSync('git', ['init', '-q', dir]);
  execFileSync('git', ['add', '.'], { cwd: dir });
  execFileSync('git', ['commit', '-qm', 'init'], { cwd: dir, env: { ...process.env, ...GIT_ENV } });
  return dir;
}

const probeSetting = (command: string, found = 'non-empty') => `      probes: [{ name: work, command: ${JSON.stringify(command)}, found: ${found} }]\n`;

function cli(dir: string, args: string[], options: { detached?: boolean } = {}): ChildProcess & { done: Promise<{ code: number | null; stdout: string }> } {
  const child = spawn(process.execPath, [ENTRY, '--', '--cwd', dir, ...args], { cwd: ROOT, env: { ...process.env, CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.resume();
  const done = new Promise<{ code: number | null; stdout: string }>((resolveDone) => child.on('close', (code) => resolveDone({ code, stdout })));
  return Object.assign(child, { done });
}

async function runMain(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['--cwd', dir, ...args], { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), env: { ...process.env, CI: 'true' }, isTTY: false, cwd: dir });
  return { code, stdout, stderr };
}

/** Polls for a file or an exit; the limit is a ceiling for a hang, not a speed target (a loaded machine is slow). */
async function until(condition: () => Promise<boolean>, what: string, limitMs = 240_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

const exists = (path: string) => stat(path).then(() => true, () => false);
const lines = async (path: string) => (await readFile(path, 'utf8').catch(() => '')).split('\n').filter((line) => line.trim().startsWith('{') && line.trim().endsWith('}')).map((line) => JSON.parse(line) as Record<string, unknown>);

describe('leases across processes', () => {
  it('six processes start a tick of the same loop at once: exactly one ticks, five exit 4 with no side effects', async () => {
    const dir = await repo({ 'ci-sweeper': probeSetting(BLOCKING_PROBE) });
    const children = Array.from({ length: 6 }, () => cli(dir, ['run', 'ci-sweeper', '--backend', 'mock', '--json']));
    const exits: Array<{ code: number | null; stdout: string }> = [];
    children.forEach((child) => void child.done.then((exit) => exits.push(exit)));
    await until(async () => exits.length >= 5, 'five processes to exit');
    expect(exits.map((exit) => exit.code)).toEqual([4, 4, 4, 4, 4]);
    expect(cliJson(exits[0]!.stdout)).toMatchObject({ error: { code: 'LEASE_HELD' } });
    // While the winner still holds the lease: one acquire, one lease file, nothing else written.
    expect((await lines(join(dir, '.loop-runtime', 'lease-history.jsonl'))).map((line) => line.event)).toEqual(['acquire']);
    expect(await readdir(join(dir, '.loop-runtime', 'leases'))).toEqual(['ci-sweeper.lock']);
    expect(await exists(join(dir, '.loop-runtime', 'spend.jsonl'))).toBe(false);
    expect(await exists(join(dir, 'loop-run-log.md'))).toBe(false);

    await writeFile(join(dir, 'go'), '');
    const winner = await Promise.all(children.map((child) => child.done));
    expect(winner.filter((exit) => exit.code === 0)).toHaveLength(1);
    const ticks = (await lines(join(dir, 'loop-run-log.md'))).filter((line) => line.pattern === 'ci-sweeper');
    expect(ticks).toHaveLength(1);
    expect(new Set((await lines(join(dir, '.loop-runtime', 'spend.jsonl'))).map((line) => line.tickId))).toEqual(new Set([ticks[0]!.tick_id]));
    expect((await lines(join(dir, '.loop-runtime', 'lease-history.jsonl'))).map((line) => line.event)).toEqual(['acquire', 'release']);
  });

  it('a lease holder killed with kill -9 is recovered by the next tick', async () => {
    const dir = await repo({ 'ci-sweeper': probeSetting(BLOCKING_PROBE) });
    const holder = cli(dir, ['run', 'ci-sweeper', '--backend', 'mock'], { detached: true });
    await until(async () => (await lines(join(dir, '.loop-runtime', 'lease-history.jsonl'))).length === 1, 'the lease');
    const held = JSON.parse(await readFile(join(dir, '.loop-runtime', 'leases', 'ci-sweeper.lock'), 'utf8')) as { pid: number };
    process.kill(-holder.pid!, 'SIGKILL');
    await holder.done;
    await writeFile(join(dir, 'go'), '');
    const next = await runMain(dir, ['run', 'ci-sweeper', '--backend', 'mock', '--json']);
    expect(next.code).toBe(0);
    const history = await lines(join(dir, '.loop-runtime', 'lease-history.jsonl'));
    expect(history.map((line) => line.event)).toEqual(['acquire', 'recover', 'acquire', 'release']);
    expect(history[1]).toMatchObject({ previous: { pid: held.pid, reason: `holder pid ${held.pid} is gone` } });
  });
});

describe('discovery probes', () => {
  async function tickWith(dir: string, id: string): Promise<{ kind: string; tokens: number; calls: number }> {
    const loaded = await loadProject(dir);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    const resolved = await resolvePlan(loaded.project, id);
    if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
    const backend = new MockBackend();
    const runtime = await createLoopRuntime(loaded.project, resolved.plan, { dryRun: false, env: process.env, backend });
    const result = await runtime.engine.tick();
    return { kind: result.kind, tokens: result.tokens, calls: backend.calls.length };
  }

  it('a probe that finds nothing ends the tick as a no-op without any model call', async () => {
    const dir = await repo({ 'ci-sweeper': probeSetting('true') });
    expect(await tickWith(dir, 'ci-sweeper')).toEqual({ kind: 'noop', tokens: 0, calls: 0 });
    expect((await lines(join(dir, 'loop-run-log.md')))[0]).toMatchObject({ outcome: 'no-op', tokens_estimate: 0 });
  });

  it('a catalogue default probe whose tool is missing lets triage run (never a silent no-op)', async () => {
    const dir = await repo({ 'dependency-sweeper': '' }); // no package.json: the npm probe cannot tell
    expect(await tickWith(dir, 'dependency-sweeper')).toMatchObject({ kind: 'report', calls: 1 });
  });
});

describe('run --due and ci init', () => {
  it('ticks due loops once, then nothing until their interval passes; run <id> still ticks regardless', async () => {
    const dir = await repo({ 'ci-sweeper': probeSetting('echo work'), 'daily-triage': '' });
    const first = await runMain(dir, ['run', '--due', '--backend', 'mock', '--json']);
    expect(first.code).toBe(0);
    const firstJson = cliJson(first.stdout) as { decisions: Array<{ id: string; action: string; reason: string }> };
    expect(firstJson.decisions.map((decision) => [decision.id, decision.action, decision.reason])).toEqual([
      ['daily-triage', 'ticked', 'never-run'],
      ['ci-sweeper', 'ticked', 'never-run'],
    ]);
    const second = cliJson((await runMain(dir, ['run', '--due', '--backend', 'mock', '--json'])).stdout) as { decisions: Array<{ action: string; reason: string }>; exitCode: number };
    expect(second.decisions.map((decision) => decision.action)).toEqual(['not-due', 'not-due']);
    expect(second.exitCode).toBe(0);
    const forced = await runMain(dir, ['run', 'ci-sweeper', '--backend', 'mock']);
    expect(forced.code).toBe(0);
    expect((await lines(join(dir, 'loop-run-log.md'))).filter((line) => line.pattern === 'ci-sweeper')).toHaveLength(2);
  });

  it('ci init writes a valid workflow, refuses to overwrite it without --force, and prints server schedules', async () => {
    const dir = await repo({ 'ci-sweeper': '' });
    // No package.json naming loop-runtime and no --package: nothing the workflow could install (exit 3, with the fix).
    const unpinned = await runMain(dir, ['ci', 'init']);
    expect(unpinned.code).toBe(3);
    expect(unpinned.stderr).toContain('--package');
    const pinned = ['--package', 'github:example/loop-runtime#0123456789abcdef0123456789abcdef01234567'];
    const written = await runMain(dir, ['ci', 'init', ...pinned]);
    expect(written.code).toBe(0);
    const workflow = parse(await readFile(join(dir, '.github', 'workflows', 'loop-runtime.yml'), 'utf8')) as { jobs: Record<string, unknown> };
    expect(Object.keys(workflow.jobs)).toEqual(['ci-sweeper']);
    const again = await runMain(dir, ['ci', 'init', ...pinned]);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('already exists');
    expect((await runMain(dir, ['ci', 'init', '--force', ...pinned])).code).toBe(0);
    const cron = await runMain(dir, ['ci', 'init', '--print-cron', ...pinned]);
    expect(cron.stdout).toMatch(/^\S+ \* \* \* \* cd .+ && mkdir -p \.loop-runtime && \{ CI=true npx --yes --package=github:example\/loop-runtime#0123456789abcdef0123456789abcdef01234567 loop-runtime run --due >> \.loop-runtime\/cron\.log 2>&1; .*\n$/);
    const dry = await runMain(dir, ['ci', 'init', '--dry-run', ...pinned]);
    expect(dry.stdout).toContain('[Timer]');
    expect(dry.stdout).toContain('concurrency:');
  });
});
