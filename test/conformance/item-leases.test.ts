/**
 * One ItemLeases contract: the file leases (O_EXCL lease files, a real second
 * node process) and the memory twin. Plus what only files can show: a holder
 * killed with SIGKILL is recovered at once.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { MemoryItemLeases } from '../../src/adapters/leases/memory-item-leases.js';
import { FileItemLeases, FileLeases } from '../../src/adapters/leases/file-leases.js';
import { describeItemLeasesConformance } from '../../src/testing/conformance/index.js';
import { FixedClock } from '../../src/testing/fixed-clock.js';
import { bundledChild } from '../bundled-child.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CHILD = join(import.meta.dirname, 'item-lease-child.ts');

async function childAcquire(root: string, request: { itemKey: string; patternId: string; tickId: string }): Promise<{ ok: boolean; holder?: string }> {
  const result = await execa(process.execPath, [await bundledChild(CHILD), root, request.itemKey, request.patternId, request.tickId, 'release'], { cwd: ROOT, reject: false, timeout: 240_000 });
  if (result.exitCode !== 0) throw new Error(`item-lease child failed (exit ${String(result.exitCode)}): ${String(result.stderr)}`);
  return JSON.parse(String(result.stdout).trim().split('\n').pop() ?? '{}') as { ok: boolean; holder?: string };
}

describeItemLeasesConformance('FileItemLeases', {
  async create({ staleMs }) {
    const root = await mkdtemp(join(tmpdir(), 'item-leases-conformance-'));
    // Lease files carry real mtimes, so the fake clock starts at the real time and only moves forward from there.
    const clock = new FixedClock(Date.now());
    return {
      participant: () => new FileItemLeases(new FileLeases({ root, now: () => clock.now(), host: hostname() }), { staleMs }),
      advance: (ms) => clock.advance(ms),
      acquireInOtherProcess: (request) => childAcquire(root, request),
      dispose: () => rm(root, { recursive: true, force: true }),
    };
  },
});

describeItemLeasesConformance('MemoryItemLeases', {
  async create({ staleMs }) {
    const clock = new FixedClock('2026-11-23T08:00:00Z');
    const leases = new MemoryItemLeases({ clock, staleMs });
    return { participant: () => leases, advance: (ms) => clock.advance(ms) };
  },
});

describe('FileItemLeases across a crash', () => {
  it('a holder killed with SIGKILL blocks others while alive and is recovered at once after', async () => {
    const root = await mkdtemp(join(tmpdir(), 'item-leases-crash-'));
    const child = spawn(process.execPath, [await bundledChild(CHILD), root, 'issue#5', 'crashing-loop', 't1', 'hold'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = await new Promise<string[]>((resolve) => createInterface({ input: child.stdout }).once('line', (first) => resolve([first])));
      expect(JSON.parse(line ?? '{}')).toEqual({ ok: true, pid: child.pid });
      const items = new FileItemLeases(new FileLeases({ root }), { staleMs: 3_600_000 });
      expect(await items.acquire({ itemKey: 'issue#5', patternId: 'next-loop', tickId: 't2' })).toMatchObject({ ok: false, holder: 'crashing-loop' });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      const taken = await items.acquire({ itemKey: 'issue#5', patternId: 'next-loop', tickId: 't3' });
      expect(taken.ok).toBe(true);
      if (taken.ok) await taken.release();
      const history = await readFile(join(root, '.loop-runtime', 'lease-history.jsonl'), 'utf8');
      expect(history).toContain(`"reason":"holder pid ${child.pid} is gone"`);
    } finally {
      child.kill('SIGKILL');
      await rm(root, { recursive: true, force: true });
    }
  });
});
