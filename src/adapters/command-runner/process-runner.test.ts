import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProcessRunner, formatOutput } from './process-runner.js';

const CANARY = 'canary-7f3a9c1e-do-not-leak';
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-runner-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is dead; it only waits for its (gone) parent to reap it.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/**
 * Whether `pid` is gone within a minute. SIGKILL returns before the process is gone: under load the killed
 * process is not scheduled at once, so an immediate check raced the kill. A survivor (`sleep 300`) still fails.
 */
async function diesSoon(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !isAlive(pid);
}

const runner = createProcessRunner({ env: { PATH: process.env.PATH, HOME: '/home/loop-test', LOOP_TEST_TOKEN: CANARY }, killGraceMs: 200 });
const run = (command: string, timeoutMs = 20_000, extra: { outputLimitBytes?: number; env?: Record<string, string> } = {}) =>
  runner.run({ command, timeoutMs }, { cwd: dir, timeoutMs, ...extra });

describe('createProcessRunner', () => {
  it('reports exit codes as data and never throws', async () => {
    const evidence = await run('echo out; echo err >&2; exit 7');
    expect(evidence).toMatchObject({ command: 'echo out; echo err >&2; exit 7', exitCode: 7, signal: null, timedOut: false });
    expect(evidence.output).toContain('out');
    expect(evidence.output).toContain('err');
    expect(runner.isolation).toBe('none');
  });

  it('reports a signal when the command is killed', async () => {
    const evidence = await run('kill -9 $$');
    expect(evidence.exitCode).toBeNull();
    expect(evidence.signal).toBe('SIGKILL');
  });

  it('does not throw when the working directory is missing', async () => {
    const evidence = await runner.run({ command: 'true', timeoutMs: 5_000 }, { cwd: join(dir, 'missing'), timeoutMs: 5_000 });
    expect(evidence.exitCode).not.toBe(0);
    expect(evidence.output).toMatch(/could not start/);
  });

  it('kills the whole process tree on timeout: no grandchild survives', async () => {
    const evidence = await run(`sleep 300 & echo $! > ${dir}/grandchild.pid; sleep 300`, 300);
    expect(evidence.timedOut).toBe(true);
    expect(evidence.exitCode).toBeNull();
    const pid = Number((await readFile(join(dir, 'grandchild.pid'), 'utf8')).trim());
    expect(pid).toBeGreaterThan(0);
    expect(await diesSoon(pid)).toBe(true);
  });

  it('does not wait for, or leave behind, a background child after a normal exit', async () => {
    const evidence = await run(`sleep 300 & echo $! > ${dir}/bg.pid; echo done`, 20_000);
    expect(evidence).toMatchObject({ exitCode: 0, timedOut: false });
    const pid = Number((await readFile(join(dir, 'bg.pid'), 'utf8')).trim());
    expect(await diesSoon(pid)).toBe(true);
  });

  it('keeps the tail of long output and marks the truncation', async () => {
    const evidence = await run(`i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done`, 20_000, { outputLimitBytes: 200 });
    expect(evidence.output).toMatch(/^\[… \d+ earlier bytes truncated …\]\n/);
    expect(evidence.output).toContain('line 1999');
    expect(evidence.output).not.toContain('line 0\n');
    expect(Buffer.byteLength(evidence.output.split('\n').slice(1).join('\n'))).toBeLessThanOrEqual(200);
  });

  it('scrubs secrets from the environment the command sees', async () => {
    const evidence = await run('env');
    expect(evidence.output).toContain('HOME=/home/loop-test');
    expect(evidence.output).not.toContain('LOOP_TEST_TOKEN');
    expect(evidence.output).not.toContain(CANARY);
  });

  it('redacts a canary secret the command prints', async () => {
    const evidence = await run(`echo "leaked: ${CANARY}"; echo "gh: ghp_${'x'.repeat(36)}"`);
    expect(evidence.output).not.toContain(CANARY);
    expect(evidence.output).not.toContain('ghp_');
    expect(evidence.output).toContain('leaked: [REDACTED]');
  });

  it('redacts secrets passed as extra environment', async () => {
    const evidence = await run('echo "$DEPLOY_TOKEN"', 20_000, { env: { DEPLOY_TOKEN: 'extra-secret-value-42' } });
    expect(evidence.exitCode).toBe(0);
    expect(evidence.output).not.toContain('extra-secret-value-42');
  });

  it("redacts the values of the worktree's secret files (walked while the command runs), not of its other files", async () => {
    // A worktree of nothing (no .git): its own files are all there is to walk.
    // Harmless names and shapes: only the file they are in makes one a secret.
    await writeFile(join(dir, '.env.local'), 'COLOUR=file-green-4b7e91\n');
    await writeFile(join(dir, 'notes.txt'), 'COLOUR=plain-blue-4b7e91\n');
    const evidence = await run('sleep 0.2; cat .env.local notes.txt');
    expect(evidence.exitCode).toBe(0);
    expect(evidence.output).not.toContain('file-green-4b7e91');
    expect(evidence.output).toContain('plain-blue-4b7e91');
  });

  it('stops on abort', async () => {
    const controller = new AbortController();
    const pending = runner.run({ command: 'sleep 300', timeoutMs: 60_000 }, { cwd: dir, timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const evidence = await pending;
    expect(evidence.exitCode).toBeNull();
    expect(evidence.signal).toBe('SIGTERM');
  });
});

describe('formatOutput', () => {
  it('does not mark output that fits', () => {
    expect(formatOutput('abc', 3, 10)).toBe('abc');
  });
});
