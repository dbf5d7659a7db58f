import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createIsolatedHome, scrubbedCliEnv, startCliProcess } from './cli-process.js';

/** A process is gone when /proc has no entry for it or it is a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function goneWithin(pid: number, attempts: number): Promise<boolean> {
  for (let i = 0; i < attempts; i += 1) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return !alive(pid);
}

describe('startCliProcess', () => {
  it('streams lines and kills the whole process group when stopped mid-stream', async () => {
    const lines: string[] = [];
    // The grandchild `sleep` would outlive a plain kill of the shell; the group kill takes it too.
    const script = 'sleep 30 & echo "child $!"; i=0; while true; do i=$((i+1)); echo "line $i"; sleep 0.01; done';
    const cli = startCliProcess({
      binary: 'sh', args: ['-c', script], cwd: process.cwd(), env: { PATH: process.env['PATH'] ?? '' }, timeoutMs: 20_000, killGraceMs: 200,
      onLine: (line) => { lines.push(line); if (lines.length === 5) cli.stop('budget'); },
    });
    const exit = await cli.done;
    expect(exit).toMatchObject({ killedFor: 'budget', notInstalled: false });
    expect(exit.signal).toBe('SIGTERM');
    const sleeper = Number(lines[0]?.split(' ')[1]);
    expect(await goneWithin(sleeper, 3000)).toBe(true);
  });

  it('starts nothing when stopped before it starts (a sandbox killed in its first milliseconds could outlive the kill); the twin starts', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'cli-process-'));
    const options = { binary: 'sh', args: ['-c', 'echo started > started.txt'], cwd: directory, env: { PATH: process.env['PATH'] ?? '' }, timeoutMs: 20_000 };
    const stopped = new AbortController();
    stopped.abort();
    const cli = startCliProcess({ ...options, signal: stopped.signal });
    expect(cli.pid).toBeUndefined();
    expect(await cli.done).toMatchObject({ killedFor: 'aborted', exitCode: null, notInstalled: false });
    expect(existsSync(join(directory, 'started.txt'))).toBe(false);
    expect(await startCliProcess(options).done).toMatchObject({ exitCode: 0 });
    expect(existsSync(join(directory, 'started.txt'))).toBe(true);
    await rm(directory, { recursive: true, force: true });
  });

  it('reports a missing binary as notInstalled, never as a rejection', async () => {
    const exit = await startCliProcess({ binary: '/nonexistent/agent-cli', args: [], cwd: process.cwd(), env: {}, timeoutMs: 5000 }).done;
    expect(exit.notInstalled).toBe(true);
  });

  it('passes stdin, the exit code and the stderr tail through', async () => {
    const out: string[] = [];
    const exit = await startCliProcess({
      binary: 'sh', args: ['-c', 'cat; echo oops >&2; exit 7'], cwd: process.cwd(), env: {}, input: 'hello\n', timeoutMs: 5000, onLine: (line) => out.push(line),
    }).done;
    expect(out).toEqual(['hello']);
    expect(exit).toMatchObject({ exitCode: 7, stderrTail: 'oops', notInstalled: false });
  });
});

describe('scrubbedCliEnv', () => {
  it('keeps the allowlist and exactly-named extras, drops other secrets, and isolates HOME', async () => {
    const home = await createIsolatedHome('cli-env');
    const env = scrubbedCliEnv({
      base: { PATH: '/bin', GITHUB_TOKEN: 'ghp_x', OPENAI_API_KEY: 'sk-1', AWS_SECRET_ACCESS_KEY: 'a', LC_ALL: 'C', HOME: '/root' },
      allow: ['OPENAI_API_KEY'], home: home.path, env: { EXTRA: '1' },
    });
    expect(env).toMatchObject({ PATH: '/bin', OPENAI_API_KEY: 'sk-1', LC_ALL: 'C', HOME: home.path, EXTRA: '1' });
    expect(env['GITHUB_TOKEN']).toBeUndefined();
    expect(env['AWS_SECRET_ACCESS_KEY']).toBeUndefined();
    await home.remove();
  });
});
