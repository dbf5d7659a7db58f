/**
 * A lease file a kill left empty or torn (as a writer that was not atomic
 * leaves it) and what the next tick is told. Real files, a real process that
 * holds the file open for the "still being written" twin, a fixed lease clock.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopRuntimeError } from '../../core/errors.js';
import { FileLeases } from './file-leases.js';
import { openByAnyProcess } from './lease-file.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'lease-unreadable-'));
  await mkdir(join(root, '.loop-runtime', 'leases'), { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function history(): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(root, '.loop-runtime', 'lease-history.jsonl'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('an unreadable lease file', () => {
  it('left by a killed writer (0 bytes, no process has it open) is taken over at once and reported', async () => {
    const path = new FileLeases({ root }).loopLeasePath('ci-sweeper');
    await writeFile(path, '');
    const written = (await stat(path)).mtimeMs;
    // The lease clock says it was written this very second: only the "no writer" evidence lets it go.
    const leases = new FileLeases({ root, pid: 200, host: 'h', now: () => written + 1_000 });
    expect(await openByAnyProcess(path)).toBe(false);
    const lease = await leases.acquireLoopLease('ci-sweeper');
    expect(lease.recovered?.reason).toMatch(/^unreadable lease file \(0 bytes\), written by a process that is gone/);
    expect((await history()).find((line) => line.event === 'recover')).toMatchObject({ previous: { reason: expect.stringContaining('0 bytes') } });
    await lease.release();
  });

  it('still open in a live process is held, and the message gives the true recovery time (seconds, not the lease timeout)', async () => {
    const path = new FileLeases({ root }).loopLeasePath('ci-sweeper');
    await writeFile(path, '{"pid": 12');
    const handle = await open(path, 'r');
    const writer = spawn('sleep', ['30'], { stdio: ['ignore', handle.fd, 'ignore'] });
    try {
      await new Promise((done) => writer.on('spawn', done));
      await handle.close();
      expect(await openByAnyProcess(path)).toBe(true);
      const written = (await stat(path)).mtimeMs;
      let now = written + 4_000;
      const leases = new FileLeases({ root, pid: 200, host: 'h', now: () => now });
      const error = await leases.acquireLoopLease('ci-sweeper', { staleMs: 35 * 60_000 }).catch((caught: unknown) => caught);
      expect(isLoopRuntimeError(error) && error.code).toBe('LEASE_HELD');
      const message = String((error as Error).message);
      expect(message).toContain('recovered automatically in 6 s');
      expect(message).not.toContain('minutes');
      now = written + 10_001;
      const lease = await leases.acquireLoopLease('ci-sweeper');
      expect(lease.recovered?.reason).toContain('older than 10s');
      await lease.release();
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('a live holder on this host: the message says it recovers when that pid exits, or at the holder\'s own stale time', async () => {
    let now = Date.now();
    const holder = await new FileLeases({ root, pid: process.pid, host: 'h', now: () => now }).acquireLoopLease('ci-sweeper', { staleMs: 20 * 60_000 });
    const error = await new FileLeases({ root, pid: 200, host: 'h', now: () => now }).acquireLoopLease('ci-sweeper', { staleMs: 35 * 60_000 }).catch((caught: unknown) => caught);
    const message = String((error as Error).message);
    expect(message).toContain(`as soon as pid ${process.pid} exits`);
    // The holder's 20 minutes, not the 35 the caller would have used.
    expect(message).toContain('(in 20 min)');
    now += 1;
    await holder.release();
  });
});
