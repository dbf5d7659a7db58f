/**
 * Leases: one tick per loop at a time, and one loop per work item, across
 * processes on a machine (or on a shared file system).
 *
 * A lease is a file created with O_EXCL (`open(path, 'wx')`), so exactly one
 * process can create it. It holds `{ pid, host, startedAt, staleMs, token }`.
 * The holder touches its mtime every `staleMs / 4` (at most every 30 s).
 * A lease is stale, and taken over, when
 * - its holder's pid is dead on this host (a kill -9, a crash): at once; or
 * - its mtime is older than `staleMs` (a hung holder, a holder on another
 *   host): after a bounded time, by default the tick's timeout + 5 minutes.
 * Taking over a stale lease happens under a short-lived `<lease>.break` file
 * (also O_EXCL), and re-checks the lease's token, so two processes that both
 * saw it stale cannot both take it.
 *
 * Every acquire, recovery and release is appended to
 * `.loop-runtime/lease-history.jsonl`; a refused acquire writes nothing.
 *
 * Fencing: a lease is held while its file carries the holder's token
 * (`stillHeld`); a holder that stalled past `staleMs` and was taken over
 * learns it there, before its next shared write (`fenceTickPorts`). Each
 * record carries a fencing number greater than the history's length and than
 * the taken-over holder's, so holders of one lease are ordered (the history
 * only grows: every acquire appends to it before it returns).
 */
import { createHash, randomUUID } from 'node:crypto';
import { appendFile, mkdir, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { LoopRuntimeError } from '../../core/errors.js';
import { createExclusive, openByAnyProcess, parseRecord, safeName } from './lease-file.js';
import { processIsAlive } from '../fs/process-alive.js';

export { FileItemLeases } from './file-item-leases.js';
export { LEASE_MARGIN_MS, type LeaseHistoryLine, type LeaseRecord } from './lease-records.js';
import type { LeaseHistoryLine, LeaseRecord } from './lease-records.js';

export interface LeaseOptions {
  /** Repository root; leases live in `<root>/.loop-runtime/leases/`. */
  root: string;
  /** Directory for the runtime's own files (default ".loop-runtime"). */
  dir?: string;
  /** Injected time (tests); default Date.now. */
  now?: () => number;
  /** Injected liveness check (tests); default `process.kill(pid, 0)`. */
  isAlive?: (pid: number) => boolean;
  /** Whether any process has a file open (null: cannot tell); default: `/proc/<pid>/fd` on Linux. */
  isOpen?: (path: string) => Promise<boolean | null>;
  host?: string;
  pid?: number;
}

export interface AcquireOptions {
  /** A lease not refreshed for this long is abandoned (default 15 minutes). */
  staleMs?: number;
  tickId?: string;
  /** For item leases: the loop taking it. */
  loop?: string;
}

/** A held lease: release it exactly once (extra calls do nothing). */
export interface Lease {
  readonly record: LeaseRecord;
  readonly path: string;
  /** Set when taking it meant taking over a lease a crashed or killed process left (also in the lease history). */
  readonly recovered?: { pid?: number; host?: string; startedAt?: number; reason: string };
  /** The fencing number: greater than every earlier holder's of this lease (see the module comment). */
  readonly fence: number;
  /** True while the lease file still carries this holder's token (no one took it over). */
  stillHeld(): Promise<boolean>;
  /** Releases the lease; `result` goes to the lease history as the tick's outcome. */
  release(result?: { outcome?: string; tickKind?: string; tickId?: string; startedAt?: number }): Promise<void>;
}

export type AcquireResult = { ok: true; lease: Lease } | { ok: false; holder: LeaseRecord | null; message: string; /** When and how the lease is recovered without a human. */ recovery: string };

const DEFAULT_STALE_MS = 15 * 60_000;
const UNWRITTEN_GRACE_MS = 10_000;
const BREAK_STALE_MS = 30_000;
const RELEASED = 'released meanwhile';

/**
 * @example
 * ```ts
 * const leases = new FileLeases({ root: '/repo' });
 * const lease = await leases.acquireLoopLease('ci-sweeper', { staleMs: plan.timeoutMs + 300_000 }); // throws LEASE_HELD when held
 * try { await engine.tick(); } finally { await lease.release({ outcome: 'no-op' }); }
 * ```
 */
export class FileLeases {
  readonly directory: string;
  readonly historyPath: string;
  private readonly now: () => number;
  private readonly isAlive: (pid: number) => boolean;
  private readonly isOpen: (path: string) => Promise<boolean | null>;
  private readonly host: string;
  private readonly pid: number;

  constructor(options: LeaseOptions) {
    const base = resolve(options.root, options.dir ?? '.loop-runtime');
    this.directory = join(base, 'leases');
    this.historyPath = join(base, 'lease-history.jsonl');
    this.now = options.now ?? Date.now;
    this.isAlive = options.isAlive ?? processIsAlive;
    this.isOpen = options.isOpen ?? openByAnyProcess;
    this.host = options.host ?? hostname();
    this.pid = options.pid ?? process.pid;
  }

  /** Path of a loop's lease file. */
  loopLeasePath(loop: string): string {
    return join(this.directory, `${safeName(loop)}.lock`);
  }

  /** Path of an item's lease file (hashed: item keys hold any characters). */
  itemLeasePath(itemKey: string): string {
    return join(this.directory, 'items', `${createHash('sha256').update(itemKey).digest('hex').slice(0, 32)}.lock`);
  }

  /** Takes the loop's lease or throws `LEASE_HELD` (exit code 4). */
  async acquireLoopLease(loop: string, options: AcquireOptions = {}): Promise<Lease> {
    const result = await this.tryAcquire('loop', loop, this.loopLeasePath(loop), { ...options, loop });
    if (result.ok) return result.lease;
    throw new LoopRuntimeError('LEASE_HELD', result.message, {
      detail: result.holder,
      fix: `wait for the running tick to finish; if no tick is running, the lease is recovered automatically ${result.recovery} (or delete ${this.loopLeasePath(loop)}).`,
    });
  }

  /** Takes an item's lease for a loop; `ok: false` names the holder. */
  async acquireItemLease(itemKey: string, options: AcquireOptions = {}): Promise<AcquireResult> {
    return this.tryAcquire('item', itemKey, this.itemLeasePath(itemKey), options);
  }

  /** The record in a lease file, or null when there is none (or it is unreadable). */
  async readHolder(path: string): Promise<LeaseRecord | null> {
    try {
      return parseRecord(await readFile(path, 'utf8'), DEFAULT_STALE_MS);
    } catch {
      return null;
    }
  }

  private async tryAcquire(kind: LeaseRecord['kind'], name: string, path: string, options: AcquireOptions): Promise<AcquireResult> {
    const record: LeaseRecord = {
      kind,
      name,
      loop: options.loop ?? name,
      pid: this.pid,
      host: this.host,
      startedAt: this.now(),
      staleMs: options.staleMs ?? DEFAULT_STALE_MS,
      token: randomUUID(),
      ...(options.tickId ? { tickId: options.tickId } : {}),
    };
    await mkdir(dirname(path), { recursive: true });
    let recovery = 'once its holder is gone';
    let recovered: LeaseHistoryLine['previous'];
    let previousFence = 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      record.fence = Math.max(await this.historyLength(), previousFence) + 1;
      if (await createExclusive(path, `${JSON.stringify(record)}\n`, record.startedAt)) {
        await this.appendHistory({ event: 'acquire', kind, name, loop: record.loop, at: record.startedAt, pid: record.pid, host: record.host, token: record.token });
        return { ok: true, lease: this.heldLease(record, path, recovered) };
      }
      const judged = await this.judge(path);
      if ('held' in judged) {
        recovery = judged.held;
        break;
      }
      if (!(await this.breakStale(path, judged.holder))) break;
      previousFence = Math.max(previousFence, judged.holder?.fence ?? 0);
      if (judged.reason === RELEASED) continue;
      const { holder: stale, reason } = judged;
      recovered = stale ? { pid: stale.pid, host: stale.host, startedAt: stale.startedAt, reason } : { reason };
      await this.appendHistory({ event: 'recover', kind, name, loop: record.loop, at: this.now(), pid: record.pid, host: record.host, token: stale?.token ?? '', previous: recovered });
    }
    const holder = await this.readHolder(path);
    const who = holder ? `pid ${holder.pid} on ${holder.host}, since ${new Date(holder.startedAt).toISOString()}` : 'another process';
    const what = kind === 'loop' ? `A tick of ${name} is already running (${who}); this one exits without doing anything.` : `Item ${name} is being worked on by ${holder?.loop ?? 'another loop'} (${who}).`;
    return { ok: false, holder, message: what, recovery };
  }

  /**
   * Why the lease at `path` may be taken over now, or (`held`) when it will be without a human. An unreadable
   * lease file (empty, torn, foreign) cannot be a live holder's of this version — leases appear whole — so it is
   * taken over at once when no process has it open (a killed writer's leftover), else after a short grace.
   */
  private async judge(path: string): Promise<{ reason: string; holder: LeaseRecord | null } | { held: string }> {
    let info;
    try {
      info = await stat(path);
    } catch {
      return { reason: RELEASED, holder: null };
    }
    const holder = await this.readHolder(path);
    const now = this.now();
    const age = now - info.mtimeMs;
    if (!holder) {
      const what = `unreadable lease file (${info.size} bytes)`;
      if (age > UNWRITTEN_GRACE_MS) return { reason: `${what}, older than ${UNWRITTEN_GRACE_MS / 1000}s`, holder: null };
      const open = await this.isOpen(path);
      if (open === false) return { reason: `${what}, written by a process that is gone (no process has it open)`, holder: null };
      return { held: `in ${Math.max(1, Math.ceil((UNWRITTEN_GRACE_MS - age) / 1000))} s (at ${new Date(info.mtimeMs + UNWRITTEN_GRACE_MS).toISOString()}: the ${what} is being written or is damaged)` };
    }
    if (holder.host === this.host && holder.pid !== this.pid && !this.isAlive(holder.pid)) {
      return { reason: `holder pid ${holder.pid} is gone`, holder };
    }
    if (age > holder.staleMs) return { reason: `not refreshed for ${Math.round(age / 1000)}s (stale after ${Math.round(holder.staleMs / 1000)}s)`, holder };
    const at = new Date(info.mtimeMs + holder.staleMs).toISOString();
    const minutes = Math.max(1, Math.ceil((holder.staleMs - age) / 60_000));
    return {
      held:
        holder.host === this.host
          ? `as soon as pid ${holder.pid} exits, or at ${at} (in ${minutes} min) if it stops refreshing the lease`
          : `at ${at} (in ${minutes} min) if pid ${holder.pid} on ${holder.host} stops refreshing the lease (a process on another host cannot be checked)`,
    };
  }

  /** Removes a stale lease under the break lock, if it is still the same stale lease. */
  private async breakStale(path: string, holder: LeaseRecord | null): Promise<boolean> {
    const breakPath = `${path}.break`;
    if (!(await createExclusive(breakPath, `${this.pid}@${this.host}\n`, this.now()))) {
      const info = await stat(breakPath).catch(() => null);
      if (info && this.now() - info.mtimeMs > BREAK_STALE_MS) await unlink(breakPath).catch(() => undefined);
      return false;
    }
    try {
      const current = await this.readHolder(path);
      if ((current?.token ?? null) !== (holder?.token ?? null)) return false;
      await unlink(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      return true;
    } finally {
      await unlink(breakPath).catch(() => undefined);
    }
  }

  private heldLease(record: LeaseRecord, path: string, recovered: LeaseHistoryLine['previous']): Lease {
    let released = false;
    const refreshMs = Math.max(1_000, Math.min(record.staleMs / 4, 30_000));
    const timer = setInterval(() => {
      // The same clock that judges staleness stamps the refresh.
      const at = new Date(this.now());
      void utimes(path, at, at).catch(() => undefined);
    }, refreshMs);
    timer.unref();
    return {
      record,
      path,
      fence: record.fence ?? 0,
      ...(recovered ? { recovered } : {}),
      stillHeld: async () => (await this.readHolder(path))?.token === record.token,
      release: async (result = {}) => {
        if (released) return;
        released = true;
        clearInterval(timer);
        const current = await this.readHolder(path);
        // Never delete a lease someone else took over after ours went stale.
        if (current?.token === record.token) await unlink(path).catch(() => undefined);
        await this.appendHistory({
          event: 'release',
          kind: record.kind,
          name: record.name,
          loop: record.loop,
          at: this.now(),
          pid: record.pid,
          host: record.host,
          token: record.token,
          startedAt: result.startedAt ?? record.startedAt,
          ...(result.outcome ? { outcome: result.outcome } : {}),
          ...(result.tickKind ? { tickKind: result.tickKind } : {}),
          ...((result.tickId ?? record.tickId) ? { tickId: result.tickId ?? record.tickId } : {}),
        });
      },
    };
  }

  /** The lease history's size in bytes: it only grows, so it orders fencing numbers. */
  private async historyLength(): Promise<number> {
    return (await stat(this.historyPath).catch(() => null))?.size ?? 0;
  }

  private async appendHistory(line: LeaseHistoryLine): Promise<void> {
    await mkdir(dirname(this.historyPath), { recursive: true });
    // One write() of one line with O_APPEND: concurrent appenders never interleave within a line.
    await appendFile(this.historyPath, `${JSON.stringify(line)}\n`, 'utf8');
  }
}
