import { mkdtemp, readFile, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopRuntimeError } from '../../core/errors.js';
import { FileItemLeases, FileLeases } from './file-leases.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'lease-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function history(): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(root, '.loop-runtime', 'lease-history.jsonl'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('FileLeases loop leases', () => {
  it('lets one holder in; a second acquire fails with LEASE_HELD and writes nothing', async () => {
    const first = new FileLeases({ root, pid: 100, host: 'h', isAlive: () => true });
    const second = new FileLeases({ root, pid: 200, host: 'h', isAlive: () => true });
    const lease = await first.acquireLoopLease('ci-sweeper');
    const before = await history();
    const error = await second.acquireLoopLease('ci-sweeper').catch((caught: unknown) => caught);
    expect(isLoopRuntimeError(error) && error.code).toBe('LEASE_HELD');
    expect(String((error as Error).message)).toContain('pid 100 on h');
    expect(await history()).toEqual(before);
    await lease.release({ outcome: 'no-op', tickKind: 'noop', tickId: 't1', startedAt: 5 });
    const again = await second.acquireLoopLease('ci-sweeper');
    await again.release();
    expect((await history()).map((line) => line.event)).toEqual(['acquire', 'release', 'acquire', 'release']);
    expect((await history())[1]).toMatchObject({ loop: 'ci-sweeper', outcome: 'no-op', tickKind: 'noop', tickId: 't1', startedAt: 5 });
    expect(await readdir(join(root, '.loop-runtime', 'leases'))).toEqual([]);
  });

  it('recovers at once a lease whose holder process is gone on this host', async () => {
    await new FileLeases({ root, pid: 100, host: 'h' }).acquireLoopLease('ci-sweeper');
    const next = new FileLeases({ root, pid: 200, host: 'h', isAlive: (pid) => pid !== 100 });
    const lease = await next.acquireLoopLease('ci-sweeper');
    expect(lease.record.pid).toBe(200);
    const recover = (await history()).find((line) => line.event === 'recover');
    expect(recover).toMatchObject({ previous: { pid: 100, host: 'h', reason: 'holder pid 100 is gone' } });
    await lease.release();
  });

  it('keeps a fresh lease of another host, and recovers it once it is stale', async () => {
    await new FileLeases({ root, pid: 100, host: 'other' }).acquireLoopLease('ci-sweeper', { staleMs: 60_000 });
    let now = Date.now();
    const next = new FileLeases({ root, pid: 200, host: 'h', isAlive: () => false, now: () => now });
    await expect(next.acquireLoopLease('ci-sweeper')).rejects.toThrow(/already running/);
    now += 61_000;
    const lease = await next.acquireLoopLease('ci-sweeper');
    expect(lease.record.host).toBe('h');
    await lease.release();
  });

  it('treats an unreadable lease file as held for a grace period when it cannot tell whether it is being written, then as stale', async () => {
    const leases = new FileLeases({ root, pid: 1, host: 'h', isOpen: async () => null });
    const path = leases.loopLeasePath('x');
    await (await import('node:fs/promises')).mkdir(join(root, '.loop-runtime', 'leases'), { recursive: true });
    await (await import('node:fs/promises')).writeFile(path, '');
    await expect(leases.acquireLoopLease('x')).rejects.toThrow(/already running/);
    const old = new Date(Date.now() - 60_000);
    await utimes(path, old, old);
    const lease = await leases.acquireLoopLease('x');
    await lease.release();
  });

  it('does not delete a lease that someone else took over after ours went stale', async () => {
    let now = Date.now();
    const first = new FileLeases({ root, pid: 100, host: 'a', now: () => now });
    const lease = await first.acquireLoopLease('x', { staleMs: 1_000 });
    now += 5_000;
    const second = new FileLeases({ root, pid: 200, host: 'b', now: () => now });
    const taken = await second.acquireLoopLease('x');
    await lease.release();
    expect((await second.readHolder(taken.path))?.pid).toBe(200);
    await taken.release();
  });
});

describe('item leases', () => {
  it('two loops never hold the same item; the port says who holds it', async () => {
    const leases = new FileLeases({ root, pid: 100, host: 'h', isAlive: () => true });
    const items = new FileItemLeases(leases);
    const first = await items.acquire({ itemKey: 'issue#7', patternId: 'issue-pr-repair', tickId: 't1' });
    expect(first.ok).toBe(true);
    const second = await items.acquire({ itemKey: 'issue#7', patternId: 'issue-triage', tickId: 't2' });
    expect(second).toMatchObject({ ok: false, holder: 'issue-pr-repair' });
    const other = await items.acquire({ itemKey: 'issue#8', patternId: 'issue-triage', tickId: 't2' });
    expect(other.ok).toBe(true);
    if (first.ok) await first.release();
    if (other.ok) await other.release();
    const third = await items.acquire({ itemKey: 'issue#7', patternId: 'issue-triage', tickId: 't3' });
    expect(third.ok).toBe(true);
    expect(leases.itemLeasePath('issue#7')).toMatch(/items\/[0-9a-f]{32}\.lock$/);
  });
});
