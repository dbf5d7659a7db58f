/**
 * proper-lockfile loads on the first lock (src/adapters/fs/lock-library.ts), possibly after a command registered
 * its own graceful SIGTERM stop. signal-exit, which it brings, re-raises a signal when it sees only its own
 * listeners left: run after a `process.once` listener had removed itself, it would kill the process mid-stop.
 * A real child process, a real lock and a real SIGTERM: the child's own stop must finish (exit 0, STOPPED).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledChild } from './bundled-child.js';

const ROOT = join(import.meta.dirname, '..');
const scratch = await mkdtemp(join(tmpdir(), 'late-lock-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('a lock taken after a graceful SIGTERM listener', () => {
  it('leaves the stop to that listener: the process finishes its stop and exits 0', async () => {
    const child = spawn(process.execPath, [await bundledChild(join(import.meta.dirname, 'late-lock-child.ts')), join(scratch, 'state.json')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (err += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('READY')) resolve();
      });
      child.on('exit', () => reject(new Error(`child exited before READY: ${out} ${err}`)));
    });
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(out).toContain('STOPPED');
  });
});
