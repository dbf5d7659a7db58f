/**
 * Crash-safe file writes. A write goes to a temporary file, is fsynced and
 * renamed over the target (write-file-atomic), then the directory is fsynced
 * so the rename itself survives a power cut. Read-modify-write cycles run
 * under an inter-process lock so two processes never lose each other's edits.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
// file-lock.ts loads proper-lockfile on the first lock (lock-library.ts), keeping signal-exit's listeners first.
import { withFileLock, type FileLockOptions } from './file-lock.js';

export { breakDeadOwnerLock, readLockOwner, withFileLock, type FileLockEvent, type FileLockOptions, type LockOwner } from './file-lock.js';

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
