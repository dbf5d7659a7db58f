/**
 * The loop-lease contract with fencing on the file leases (O_EXCL lease files);
 * the Postgres leases run the same suite in leases-postgres.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLeases } from '../../src/adapters/leases/file-leases.js';
import { isLoopRuntimeError } from '../../src/core/errors.js';
import { describeLoopLeasesConformance } from '../../src/testing/conformance/index.js';
import { FixedClock } from '../../src/testing/fixed-clock.js';

describeLoopLeasesConformance('FileLeases', {
  async create({ staleMs }) {
    const root = await mkdtemp(join(tmpdir(), 'loop-leases-conformance-'));
    // Lease files carry real mtimes, so the fake clock starts at the real time and only moves forward from there.
    const clock = new FixedClock(Date.now());
    // One FileLeases per holder, each its own (pretend) process on this host: a live pid, so only staleness frees it.
    const pids = new Map<string, number>();
    const leases = (holder: string) => {
      if (!pids.has(holder)) pids.set(holder, process.pid);
      return new FileLeases({ root, now: () => clock.now(), host: hostname(), pid: pids.get(holder)! });
    };
    return {
      async acquire(request) {
        try {
          return { ok: true, lease: await leases(request.holder).acquireLoopLease(request.patternId, { staleMs, tickId: request.tickId }) };
        } catch (error) {
          if (isLoopRuntimeError(error) && error.code === 'LEASE_HELD') return { ok: false };
          throw error;
        }
      },
      advance: (ms) => clock.advance(ms),
      dispose: () => rm(root, { recursive: true, force: true }),
    };
  },
});
