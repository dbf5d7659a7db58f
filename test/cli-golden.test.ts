/**
 * Golden tests of the built CLI (`bin/loop-runtime.js`, a real subprocess) in
 * a repository scaffolded by the real loop-init, after sanitizing ids, hashes,
 * dates and paths.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnvelope, cliJson } from './cli-json.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'loop-runtime.js');
const loopInit = join(root, 'node_modules', '.bin', 'loop-init');

async function cli(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', CI: '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

function sanitize(text: string, repo: string): string {
  return text
    .replaceAll(repo, '<repo>')
    .replace(/tick-[0-9a-z]+-[0-9a-z]+/g, '<tick>')
    .replace(/mock-1-[0-9a-z]+/g, 'mock-1-<id>')
    .replace(/\b[0-9a-f]{12}\b/g, '<sha>')
    .replace(/\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?Z)?/g, '<date>');
}

async function hashTree(directory: string): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  async function walk(current: string): Promise<void> {
    for (const entry of await readdir(current)) {
      const path = join(current, entry);
      const info = await stat(path);
      if (info.isDirectory()) await walk(path);
      else hashes.set(relative(directory, path), createHash('sha256').update(await readFile(path)).digest('hex'));
    }
  }
  await walk(directory);
  return hashes;
}

let repo: string;

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'cli-golden-'));
  const git = (...args: string[]) => run('git', args, { cwd: repo });
  await git('init', '--quiet', '--initial-branch=main');
  await run(loopInit, [repo, '--pattern', 'daily-triage', '--tool', 'claude'], { cwd: repo });
  await mkdir(join(repo, 'src'));
  await writeFile(join(repo, 'src', 'example.ts'), 'export const answer = 42;\n');
  await git('add', '-A');
  await git('-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', 'commit', '--quiet', '-m', 'initial');
});

describe('CLI golden output', () => {
  it('run --dry-run: the demo, with the repository byte-for-byte unchanged', async () => {
    const before = await hashTree(repo);
    const result = await cli(repo, ['run', 'daily-triage', '--level', 'L2', '--dry-run']);
    expect(result.code).toBe(0);
    await expect(sanitize(result.stdout, repo)).toMatchFileSnapshot('__golden__/run-dry-run.txt');
    expect(await hashTree(repo)).toEqual(before);
  });

  it('run --dry-run --json: the TickResult as data', async () => {
    const result = await cli(repo, ['run', 'daily-triage', '--level', 'L2', '--dry-run', '--json', '--ticks', '2']);
    expect(result.code).toBe(0);
    const summary = cliJson(result.stdout) as { ticks: Array<{ kind: string; tokens: number }>; budget: { spentToday: number; dailyTokenCap: number } };
    // The rehearsal runs no verification command: no evidence, so each change is escalated, never approved.
    expect(summary.ticks.map((tick) => tick.kind)).toEqual(['escalated', 'escalated']);
    expect(summary.budget.spentToday).toBe(summary.ticks[0]!.tokens + summary.ticks[1]!.tokens);
    expect(summary.budget.dailyTokenCap).toBe(100_000);
  });

  it('plan: the review text, naming the agent a real run would use and why', async () => {
    // A stand-in `claude` on a PATH of our own: the scaffold (.claude/skills) names Claude Code, and it is installed.
    const shims = await mkdtemp(join(tmpdir(), 'cli-golden-shims-'));
    await writeFile(join(shims, 'claude'), '#!/bin/sh\necho "2.0.0 (Claude Code)"\n', { mode: 0o755 });
    const result = await cli(repo, ['plan', 'daily-triage', '--level', 'L2'], { PATH: `${shims}:/usr/bin:/bin` });
    expect(result.code).toBe(0);
    await expect(sanitize(result.stdout, repo).replaceAll(shims, '<shims>')).toMatchFileSnapshot('__golden__/plan-daily-triage-L2.txt');
  });

  it('run at L0 halts with exit 2 and calls nothing', async () => {
    const result = await cli(repo, ['run', 'daily-triage', '--level', 'L0', '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('halted (level-l0)');
  });

  it('a failed or halted tick prints each reason once', async () => {
    const small = await mkdtemp(join(tmpdir(), 'cli-small-cap-'));
    await writeFile(join(small, 'LOOP.md'), '---\nloop-runtime:\n  backend: mock\n  dailyTokenCap: 1000\n  loops:\n    daily-triage: {}\n---\n# Loops\n');
    await run('git', ['init', '--quiet', '--initial-branch=main'], { cwd: small });
    await run('git', ['add', '-A'], { cwd: small });
    await run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', 'commit', '--quiet', '-m', 'initial'], { cwd: small });
    const failed = await cli(small, ['run', 'daily-triage', '--level', 'L1']);
    await expect(sanitize(failed.stdout, small)).toMatchFileSnapshot('__golden__/run-failed-reservation.txt');
    const halted = await cli(repo, ['run', 'daily-triage', '--level', 'L0', '--dry-run']);
    for (const output of [failed.stdout, halted.stdout]) {
      const details = output.split('\n').filter((line) => line.trimStart().startsWith('·')).map((line) => line.replace(/^\s*·\s*(\w+ failed: )?/, ''));
      expect(new Set(details).size).toBe(details.length);
    }
  });

  it('the kill switch file pauses the loop: exit 2', async () => {
    const paused = await mkdtemp(join(tmpdir(), 'cli-paused-'));
    await writeFile(join(paused, 'loop-pause-all'), '');
    const result = await cli(paused, ['run', 'daily-triage', '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('paused (file loop-pause-all)');
  });

  it('an unknown loop is a config error: exit 3 with the known ids', async () => {
    const result = await cli(repo, ['run', 'nightly-magic', '--dry-run']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('there is no loop pattern with id "nightly-magic"');
    expect(result.stderr).toContain('daily-triage');
    const json = await cli(repo, ['run', 'nightly-magic', '--dry-run', '--json']);
    expect(json.code).toBe(3);
    const parsed = cliEnvelope(json.stdout);
    expect(parsed).toMatchObject({ ok: false, command: 'run', error: { code: 'PATTERN_NOT_FOUND', issues: [expect.objectContaining({ code: 'PATTERN_NOT_FOUND' })] } });
  });

  it('a bad flag value is a usage error: exit 3', async () => {
    const result = await cli(repo, ['run', 'daily-triage', '--level', 'L9']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('--level L9 is not an autonomy level. To fix: use L0, L1, L2 or L3.');
  });

  it('a dry run outside a git repository says it fell back to an in-memory copy', async () => {
    const plain = await mkdtemp(join(tmpdir(), 'cli-no-git-'));
    await writeFile(join(plain, 'README.md'), '# not a repository\n');
    const result = await cli(plain, ['run', 'daily-triage', '--level', 'L2', '--dry-run', '--json']);
    const summary = cliJson(result.stdout) as { ticks: Array<{ kind: string }>; notes: string[] };
    expect(summary.ticks[0]?.kind).not.toBe('failed');
    expect(summary.notes.join('\n')).toMatch(/is not a git repository with a commit, so the rehearsal used an in-memory copy/);
  });

  // main.ts reads the version (package.json) only where cac can print it; each place it is printed is checked here,
  // and the twin: a command's own output carries no version line.
  it('the version shows wherever cac prints it: --version, -v, the help header and options, a bare global flag', async () => {
    const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
    for (const args of [['--version'], ['-v']]) expect((await cli(repo, args)).stdout).toMatch(new RegExp(`^loop-runtime/${version.replaceAll('.', '\\.')} `));
    for (const args of [[], ['--help'], ['help'], ['--json']]) {
      const shown = (await cli(repo, args)).stdout;
      expect(shown.startsWith(`loop-runtime/${version}\n`), args.join(' ')).toBe(true);
      expect(shown, args.join(' ')).toContain('-v, --version');
    }
    expect((await cli(repo, ['status', '--help'])).stdout.startsWith(`loop-runtime/${version}\n`)).toBe(true);
    expect((await cli(repo, ['list'])).stdout).not.toContain(`loop-runtime/${version}`);
  });

  it('help <command> shows the command\'s help with the exit codes; --dry-run --backend X says it rehearses with the mock', async () => {
    const help = await cli(repo, ['help', 'run']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--dry-run');
    expect(help.stdout).toMatch(/Exit codes:\n\s+0 ok/);
    const rehearsal = await cli(repo, ['run', 'daily-triage', '--dry-run', '--backend', 'claude-code', '--json']);
    const summary = cliJson(rehearsal.stdout) as { backend: string; notes: string[] };
    expect(summary.backend).toBe('mock');
    expect(summary.notes[0]).toBe('dry-run: rehearsed with the mock backend; --backend claude-code applies to runs without --dry-run.');
  });

  it('an unknown flag is a usage error: exit 3, one line, no stack trace', async () => {
    const result = await cli(repo, ['run', 'daily-triage', '--bogus']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('loop-runtime run: Unknown option `--bogus`. Run `loop-runtime run --help` for its flags.\n');
  });

  it('--backend mock without --dry-run writes real state that loop status reads', async () => {
    // A real tick needs evidence to propose a change: one (sandboxed) verification command.
    const loopMd = await readFile(join(repo, 'LOOP.md'), 'utf8');
    const block = 'loop-runtime:\n  verify: ["true"]\n';
    await writeFile(join(repo, 'LOOP.md'), loopMd.startsWith('---\n') ? `---\n${block}${loopMd.slice(4)}` : `---\n${block}---\n${loopMd}`);
    const result = await cli(repo, ['run', 'daily-triage', '--level', 'L2', '--backend', 'mock', '--json']);
    expect(result.code).toBe(0);
    const summary = cliJson(result.stdout) as { ticks: Array<{ kind: string; tokens: number; commit?: { branch: string } }> };
    expect(summary.ticks[0]?.kind).toBe('proposed');
    const status = await cli(repo, ['status', '--json']);
    const parsed = cliJson(status.stdout) as { loops: Array<{ id: string; spentToday: number; rehearsalSpentToday: number; lastRuns: Array<{ outcome: string }> }> };
    const loop = parsed.loops.find((entry) => entry.id === 'daily-triage');
    // The loop's real agent is held to its cap; the mock's tokens are shown beside it, never counted.
    expect(loop?.spentToday).toBe(0);
    expect(loop?.rehearsalSpentToday).toBe(summary.ticks[0]!.tokens);
    expect((await cli(repo, ['status'])).stdout).toContain(`(+ rehearsal: ${summary.ticks[0]!.tokens.toLocaleString('en-US')} tokens, not counted`);
    expect(loop?.lastRuns[0]?.outcome).toBe('fix-proposed');
    const { stdout } = await run('git', ['branch', '--list', 'loop/*'], { cwd: repo });
    expect(stdout).toContain(summary.ticks[0]!.commit!.branch);
  });
});
