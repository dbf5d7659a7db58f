/**
 * Crash-safe file writes. A write goes to a temporary file, is fsynced and
 * renamed over the target (write-file-atomic), then the directory is fsynced
 * so the rename itself survives a power cut. Read-modify-write cycles run
 * under an inter-process lock so two processes never lose each other's edits.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
// Imported eagerly on purpose: proper-lockfile installs signal-exit's SIGINT/SIGTERM listeners when it loads, and
// they must come before any listener of ours (serve's graceful stop); installed later, signal-exit would see itself
// as the last listener and re-raise the signal, killing the process before our handler's work is done.
import lockfile from 'proper-lockfile';
import { LoopRuntimeError } from '../../core/errors.js';

export interface FileLockOptions {
  /** A lock older than this is considered abandoned by a crashed process (default 10 000 ms). */
  staleMs?: number;
  /** How long to keep trying to take a held lock before failing (default 30 000 ms). */
  waitMs?: number;
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
 * Runs `action` while holding an inter-process lock on `path` (a `<path>.lock`
 * directory beside it, taken with mkdir). A lock not refreshed for `staleMs`
 * is taken over, so a crashed holder cannot block others forever.
 */
export async function withFileLock<T>(path: string, action: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const staleMs = options.staleMs ?? 10_000;
  const waitMs = options.waitMs ?? 30_000;
  let compromised: Error | null = null;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(path, {
      realpath: false,
      lockfilePath: `${path}.lock`,
      stale: staleMs,
      retries: { retries: Math.ceil(waitMs / 100), factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true },
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    throw new LoopRuntimeError('STATE_FAILED', `Could not lock ${path}: ${(error as Error).message}.`, {
      cause: error,
      retryable: true,
      fix: `if no other loop-runtime process is running, remove the stale lock directory ${path}.lock.`,
    });
  }
  try {
    const result = await action();
    if (compromised) throw compromised;
    return result;
  } finally {
    await release().catch(() => undefined);
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
