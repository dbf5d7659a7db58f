/**
 * Inter-process locks for read-modify-write cycles: a `<path>.lock` directory
 * taken with mkdir (proper-lockfile), plus who holds it — `owner.json` inside
 * the directory, `{ pid, host, token }`, written as part of taking it.
 *
 * proper-lockfile judges a lock stale by its mtime only (10 s here), so a
 * holder killed with SIGKILL used to make the next tick wait that long. A lock
 * whose owner is a dead pid on this host is taken over at once: under an
 * exclusive `<path>.lock.break` file, and only if the owner's token is still
 * the one read (another process may have taken the lock over meanwhile). A
 * lock with no owner file (another host's process, an older version, or one
 * caught between mkdir and the owner write) is left to the mtime rule.
 */
import * as fs from 'node:fs';
import { open, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { LoopRuntimeError } from '../../core/errors.js';
import { processIsAlive } from './process-alive.js';
import { loadLockLibrary } from './lock-library.js';

export interface FileLockOptions {
  /** A lock older than this is considered abandoned by a crashed process (default 10 000 ms). */
  staleMs?: number;
  /** How long to keep trying to take a held lock before failing (default 30 000 ms). */
  waitMs?: number;
  /** Told of each wait for a held lock and each takeover of a dead owner's lock (tests, diagnostics). */
  onEvent?: (event: FileLockEvent) => void;
}

export type FileLockEvent = { type: 'wait'; attempt: number } | { type: 'took-over'; lock: string; owner: LockOwner; reason: string };

/** Who holds a lock directory. */
export interface LockOwner {
  pid: number;
  host: string;
  token: string;
}

const OWNER_FILE = 'owner.json';
const BREAK_STALE_MS = 30_000;

/** proper-lockfile's fs, with mkdir recording the owner and rmdir removing the lock directory with its owner file. */
function ownerRecordingFs(owner: LockOwner) {
  return {
    ...fs,
    mkdir: (path: string, callback: (error: NodeJS.ErrnoException | null) => void) => {
      fs.mkdir(path, (error) => {
        if (error) return callback(error);
        fs.writeFile(join(path, OWNER_FILE), `${JSON.stringify(owner)}\n`, () => callback(null));
      });
    },
    rmdir: (path: string, callback: (error: NodeJS.ErrnoException | null) => void) => {
      fs.rm(path, { recursive: true, force: true }, (error) => callback(error));
    },
    // proper-lockfile releases held locks this way when the process exits.
    rmdirSync: (path: string) => fs.rmSync(path, { recursive: true, force: true }),
  };
}

/** The owner recorded in a lock directory, or null (none yet, another version, unreadable). */
export async function readLockOwner(lockPath: string): Promise<LockOwner | null> {
  try {
    const value = JSON.parse(await readFile(join(lockPath, OWNER_FILE), 'utf8')) as Partial<LockOwner>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.token !== 'string') return null;
    return { pid: value.pid, host: value.host, token: value.token };
  } catch {
    return null;
  }
}

/**
 * Removes `lockPath` when its owner is a dead process on this host, under the break file, re-checking the
 * owner's token. Returns the owner it removed, or null when the lock is not provably abandoned.
 */
export async function breakDeadOwnerLock(lockPath: string, isAlive: (pid: number) => boolean = processIsAlive): Promise<LockOwner | null> {
  const owner = await readLockOwner(lockPath);
  const { hostname } = await import('node:os');
  if (!owner || owner.host !== hostname() || owner.pid === process.pid || isAlive(owner.pid)) return null;
  const breakPath = `${lockPath}.break`;
  let handle;
  try {
    handle = await open(breakPath, 'wx');
  } catch {
    // Another process is breaking it; a break file left by a crash expires.
    const info = await fs.promises.stat(breakPath).catch(() => null);
    if (info && Date.now() - info.mtimeMs > BREAK_STALE_MS) await unlink(breakPath).catch(() => undefined);
    return null;
  }
  try {
    await handle.close();
    if ((await readLockOwner(lockPath))?.token !== owner.token) return null;
    await rm(lockPath, { recursive: true, force: true });
    return owner;
  } finally {
    await unlink(breakPath).catch(() => undefined);
  }
}

/**
 * Runs `action` while holding an inter-process lock on `path` (a `<path>.lock`
 * directory beside it, taken with mkdir). A lock whose owner process is dead
 * on this host is taken over at once; one not refreshed for `staleMs` (a hung
 * holder, another host) after that time.
 *
 * @example
 * ```ts
 * await withFileLock('/repo/.loop-runtime/deliveries.json', async () => rewrite());
 * ```
 */
export async function withFileLock<T>(path: string, action: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const staleMs = options.staleMs ?? 10_000;
  const waitMs = options.waitMs ?? 30_000;
  const lockPath = `${path}.lock`;
  // Loaded on the first lock, not with this module: commands that only read (status, validate) never load them.
  const [lockfile, { randomUUID }, { hostname }] = await Promise.all([loadLockLibrary(), import('node:crypto'), import('node:os')]);
  const owner: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID() };
  let compromised: Error | null = null;
  let release: (() => Promise<void>) | null = null;
  const started = Date.now();
  for (let attempt = 0; release === null; attempt++) {
    try {
      release = await lockfile.lock(path, {
        realpath: false,
        lockfilePath: lockPath,
        stale: staleMs,
        retries: 0,
        fs: ownerRecordingFs(owner),
        onCompromised: (error) => {
          compromised = error;
        },
      });
    } catch (error) {
      const held = (error as NodeJS.ErrnoException).code === 'ELOCKED';
      if (held) {
        const dead = await breakDeadOwnerLock(lockPath);
        if (dead) {
          options.onEvent?.({ type: 'took-over', lock: lockPath, owner: dead, reason: `owner pid ${dead.pid} on ${dead.host} is gone` });
          continue;
        }
      }
      if (!held || Date.now() - started >= waitMs) {
        throw new LoopRuntimeError('STATE_FAILED', `Could not lock ${path}: ${(error as Error).message}.`, {
          cause: error,
          retryable: true,
          fix: `if no other loop-runtime process is running, remove the stale lock directory ${lockPath}.`,
        });
      }
      options.onEvent?.({ type: 'wait', attempt });
      await new Promise((done) => setTimeout(done, Math.min(100, 5 * 1.2 ** attempt) * (0.5 + Math.random())));
    }
  }
  try {
    const result = await action();
    if (compromised) throw compromised;
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}
