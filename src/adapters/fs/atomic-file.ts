/**
 * Crash-safe file writes. A write goes to a temporary file, is fsynced and
 * renamed over the target (write-file-atomic), then the directory is fsynced
 * so the rename itself survives a power cut. Read-modify-write cycles run
 * under an inter-process lock so two processes never lose each other's edits.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FileLockOptions } from './file-lock.js';

export type { FileLockEvent, FileLockOptions, LockOwner } from './file-lock.js';

let fileLock: Promise<typeof import('./file-lock.js')> | null = null;

/**
 * file-lock.ts's `withFileLock`, its module loaded on the first lock: `status` reads through this module and never
 * locks. (file-lock.ts itself loads proper-lockfile on the first lock, keeping signal-exit's listeners first.)
 */
export async function withFileLock<T>(path: string, action: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const { withFileLock: lock } = await (fileLock ??= import('./file-lock.js'));
  return lock(path, action, options);
}

/** Reads a UTF-8 file, or null when it does not exist. */
export async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Writes a file atomically and durably (temp file + fsync + rename + directory fsync). */
export async function writeTextAtomically(path: string, text: string): Promise<void> {
  // Imported on first write: commands that only read (status, list) never load it. (Its signal-exit listeners are
  // installed per write, not at load, so loading it late changes nothing.)
  const { default: writeFileAtomic } = await import('write-file-atomic');
  await writeFileAtomic(path, text, { encoding: 'utf8', fsync: true });
  await fsyncDirectory(dirname(path));
}

/** Fsyncs a directory so a rename or a new file in it is durable. Not supported everywhere: best effort. */
export async function fsyncDirectory(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch {
    // Windows and some file systems refuse to open or sync directories.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Read-modify-write under the lock: `update` gets the current text (null when
 * the file is missing) and returns the new text, which is written atomically.
 * Returns the text written. When `update` returns the old text unchanged,
 * nothing is written.
 *
 * @example
 * ```ts
 * await updateFileAtomically('/repo/STATE.md', (old) => updateStateFile(old, { tick }));
 * ```
 */
export async function updateFileAtomically(
  path: string,
  update: (old: string | null) => string | Promise<string>,
  options: FileLockOptions = {},
): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  return withFileLock(
    path,
    async () => {
      const old = await readTextOrNull(path);
      const next = await update(old);
      if (next !== old) await writeTextAtomically(path, next);
      return next;
    },
    options,
  );
}
