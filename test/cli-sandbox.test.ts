/**
 * `loop-runtime sandbox run` end to end through the CLI's main(), with real
 * bubblewrap (skipped only when bwrap is not installed; the availability
 * check in sandbox-escape.test.ts fails under CI instead).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { findExecutable } from '../src/adapters/command-runner/sandbox-host.js';
import { cliJson } from './cli-json.js';

const bwrapPath = await findExecutable('bwrap');
const CANARY = 'cli-canary-secret-0d9e7b';

let cwd: string;
let outsideDir: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'loop-cli-sandbox-'));
  outsideDir = await mkdtemp(join(tmpdir(), 'loop-cli-outside-'));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
  await rm(outsideDir, { recursive: true, force: true });
});

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SERVICE_API_KEY: CANARY },
    isTTY: false,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

describe.skipIf(bwrapPath === null)('loop-runtime sandbox run (real bwrap)', () => {
  it("exits with the command's exit code and prints its output and a summary", async () => {
    const result = await cli(['sandbox', 'run', '--', 'sh', '-c', 'echo hello; exit 5']);
    expect(result.code).toBe(5);
    expect(result.stdout).toMatch(/^hello\n\[sandbox bwrap · net none · exit 5 · \d+ ms\]\n$/);
  });

  it('makes the current directory writable and nothing else', async () => {
    const result = await cli(['sandbox', 'run', '--', 'sh', '-c', `echo in > inside.txt && echo out > ${join(outsideDir, 'x.txt')}`]);
    expect(result.code).not.toBe(0);
    expect(await readFile(join(cwd, 'inside.txt'), 'utf8')).toBe('in\n');
    await expect(readFile(join(outsideDir, 'x.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('--write adds a writable directory', async () => {
    const result = await cli(['sandbox', 'run', '--write', outsideDir, '--', 'sh', '-c', `echo out > ${join(outsideDir, 'x.txt')}`]);
    expect(result.code).toBe(0);
    expect(await readFile(join(outsideDir, 'x.txt'), 'utf8')).toBe('out\n');
  });

  it('exits 124 on timeout', async () => {
    const result = await cli(['sandbox', 'run', '--timeout', '0.3', '--', 'sleep', '30']);
    expect(result.code).toBe(124);
    expect(result.stdout).toContain('timed out after 0.3s');
  });

  it('--json carries the evidence, redacted', async () => {
    const result = await cli(['sandbox', 'run', '--json', '--net', 'loopback', '--', 'sh', '-c', `echo "$SERVICE_API_KEY"; echo ${CANARY}`]);
    expect(result.code).toBe(0);
    const json = cliJson(result.stdout) as { isolation: string; network: string; evidence: { exitCode: number; output: string } };
    expect(json).toMatchObject({ isolation: 'bwrap', network: 'loopback', evidence: { exitCode: 0 } });
    expect(json.evidence.output).toBe('\n[REDACTED]\n');
    expect(result.stdout).not.toContain(CANARY);
  });
});

describe.skipIf(bwrapPath === null)('loop-runtime sandbox run in a linked worktree (real bwrap)', () => {
  it("shows what a loop's commands see: the worktree, not the checkout behind its .git file (the twin: the worktree's own file)", async () => {
    // Outside /tmp, so the sandbox's private /tmp is not what hides the checkout.
    const base = await mkdtemp(join('/var/tmp', 'loop-cli-sandbox-wt-'));
    try {
      const checkout = join(base, 'checkout');
      const git = (...args: string[]) => execFileSync('git', args, { cwd: checkout, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
      await mkdir(checkout);
      await writeFile(join(checkout, 'own.txt'), 'own-file\n');
      git('init', '-q', '-b', 'main');
      git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'add', '.');
      git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
      await writeFile(join(checkout, '.env'), `API_TOKEN=${CANARY}\n`);
      const worktree = join(base, 'state', 'a1');
      git('worktree', 'add', '--quiet', '-b', 'loop/a1', worktree, 'HEAD');
      let stdout = '';
      const code = await main(['sandbox', 'run', '--', 'sh', '-c', 'cat own.txt; cat "$(sed -n \'s/^gitdir: //p\' .git)/../../../.env" | rev; cat ../../checkout/.env | rev'], {
        cwd: worktree,
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
        isTTY: false,
        stdout: (text) => (stdout += text),
        stderr: () => {},
      });
      expect(code).toBe(0);
      expect(stdout).toContain('own-file');
      expect(stdout).not.toContain([...CANARY].reverse().join(''));
      expect(stdout).toMatch(/No such file or directory/);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});

describe('loop-runtime sandbox usage errors', () => {
  it('rejects a missing command', async () => {
    const result = await cli(['sandbox', 'run']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/No command given after "--"\. To fix: use: loop-runtime sandbox run/);
  });

  it('rejects an unknown --net mode', async () => {
    const result = await cli(['sandbox', 'run', '--net', 'internet', '--', 'true']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/--net must be "none" or "loopback"/);
  });

  it('rejects an unknown action', async () => {
    const result = await cli(['sandbox', 'exec', '--', 'true']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/Unknown sandbox action "exec"/);
  });
});
