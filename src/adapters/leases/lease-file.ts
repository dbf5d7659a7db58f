/** File primitives for leases: whole-file exclusive creation, record parsing, liveness. */
import { randomUUID } from 'node:crypto';
import { link, open, readdir, rm, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { LeaseRecord } from './lease-records.js';
import { processIsAlive } from '../fs/process-alive.js';

/**
 * Creates `path` with `content` only if it does not exist, all or nothing:
 * the content is written, fsynced and stamped with `at` (the lease clock) in
 * a temporary file first, then hard-linked into place, which fails if the path
 * exists. A reader never sees the lease empty or half written.
 */
export async function createExclusive(path: string, content: string, at: number): Promise<boolean> {
  // Host and pid in the name: a temporary a kill left is removed by the next tick start once its pid is gone.
  const temporary = `${path}.${safeName(hostname())}.${process.pid}.${randomUUID()}.tmp`;
  const handle = await open(temporary, 'wx');
  try {
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    const stamp = new Date(at);
    await utimes(temporary, stamp, stamp);
    await link(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/** A lease file's record, or null when it is not one (torn, foreign, empty). */
export function parseRecord(text: string, defaultStaleMs: number): LeaseRecord | null {
  try {
    const value = JSON.parse(text) as Partial<LeaseRecord>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.token !== 'string' || typeof value.startedAt !== 'number') return null;
    return { staleMs: defaultStaleMs, kind: 'loop', name: '', loop: '', ...value } as LeaseRecord;
  } catch {
    return null;
  }
}

/** A loop id as a file name. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * Whether any process on this host has `path` open, from `/proc/<pid>/fd` (Linux). Other users' processes
 * (whose descriptors we may not read) are skipped: they cannot write our lease files. null when it cannot be
 * told (no /proc: macOS, Windows): then the caller waits out its grace.
 */
export async function openByAnyProcess(path: string): Promise<boolean | null> {
  const { readdir, readlink, realpath } = await import('node:fs/promises');
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const target = await realpath(path).catch(() => path);
  let unknown = false;
  for (const pid of pids) {
    let descriptors: string[];
    try {
      descriptors = await readdir(`/proc/${pid}/fd`);
    } catch (error) {
      // A process that exited meanwhile is no writer; another user's (EACCES) cannot write our lease files.
      if (!['ENOENT', 'EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) unknown = true;
      continue;
    }
    for (const descriptor of descriptors) {
      if ((await readlink(`/proc/${pid}/fd/${descriptor}`).catch(() => '')) === target) return true;
    }
  }
  return unknown ? null : false;
}

const LEASE_TEMPORARY = /^.+\.lock\.([A-Za-z0-9._-]+)\.(\d+)\.[0-9a-f-]{36}\.tmp$/;

/**
 * Removes the temporaries `createExclusive` left in `directories` when a kill stopped it before its unlink:
 * only those named for this host whose pid is gone. Returns the removed paths.
 */
export async function removeDeadLeaseTemporaries(directories: readonly string[], isAlive: (pid: number) => boolean = processIsAlive): Promise<string[]> {
  const host = safeName(hostname());
  const removed: string[] = [];
  for (const directory of directories) {
    for (const name of await readdir(directory).catch(() => [])) {
      const match = LEASE_TEMPORARY.exec(name);
      if (!match || match[1] !== host || Number(match[2]) === process.pid || isAlive(Number(match[2]))) continue;
      await rm(join(directory, name), { force: true });
      removed.push(join(directory, name));
    }
  }
  return removed;
}
