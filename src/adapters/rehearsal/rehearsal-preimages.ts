/**
 * What a rehearsal (`--backend mock` outside a dry run) must give back. The
 * methodology's files (state file, run log, ledger) are tracked by the team;
 * `reset <id> --mock` promises them byte for byte as they were before the
 * first mock tick. Removing the mock's lines alone cannot promise that (the
 * state file's "Last run:" line, a run log's missing final newline, a ledger
 * the mock created), so the tick session keeps each file's pre-image the first
 * time a mock tick is about to write it, and the image the mock left.
 *
 * `reset --mock` restores a pre-image only when the file is still exactly what
 * the mock left: a real tick since (which drops the pre-images of the files it
 * writes) or a human's edit means the file holds more than the rehearsal, and
 * only the mock's own lines are removed. Kept in `.loop-runtime/rehearsal.json`.
 */
import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readTextOrNull, withFileLock, writeTextAtomically } from '../fs/atomic-file.js';

export const REHEARSAL_FILE = '.loop-runtime/rehearsal.json';

interface PreImage {
  /** The file's text before the first mock write; null: it did not exist. */
  before: string | null;
  /** sha256 of the text the last mock tick left; null until a mock tick ended. */
  after: string | null;
}

type PreImages = Record<string, PreImage>;

const digest = (text: string | null) => (text === null ? 'absent' : createHash('sha256').update(text).digest('hex'));

async function change(root: string, edit: (images: PreImages) => Promise<PreImages>): Promise<void> {
  const path = join(root, REHEARSAL_FILE);
  await mkdir(dirname(path), { recursive: true });
  await withFileLock(path, async () => {
    const text = await readTextOrNull(path);
    let images: PreImages = {};
    try {
      images = text ? (JSON.parse(text) as PreImages) : {};
    } catch {
      // An unreadable record restores nothing: reset falls back to removing the mock's lines.
      images = {};
    }
    const next = await edit(images);
    if (Object.keys(next).length === 0) await rm(path, { force: true });
    else await writeTextAtomically(path, `${JSON.stringify(next, null, 2)}\n`);
  });
}

/**
 * Before a tick writes `files` (paths relative to the root): a mock tick keeps the pre-image of each file it is the
 * first to write; a real tick drops theirs (from now on the files hold results, not only a rehearsal).
 */
export async function beforeTickWrites(root: string, files: readonly string[], rehearsal: boolean): Promise<void> {
  await change(root, async (images) => {
    const next = { ...images };
    for (const file of files) {
      if (!rehearsal) delete next[file];
      else if (!next[file]) next[file] = { before: await readTextOrNull(join(root, file)), after: null };
    }
    return next;
  });
}

/** After a mock tick: remembers what it left in each file it had the pre-image of. */
export async function afterRehearsal(root: string, files: readonly string[]): Promise<void> {
  await change(root, async (images) => {
    const next = { ...images };
    for (const file of files) if (next[file]) next[file] = { ...next[file]!, after: digest(await readTextOrNull(join(root, file))) };
    return next;
  });
}

/**
 * For `reset --mock`: restores each of `files` still exactly as the mock left it to its pre-image (removing a file
 * the mock created); returns the files restored. The others keep their content for the line-by-line removal.
 */
export async function restorePreImages(root: string, files: readonly string[]): Promise<string[]> {
  const restored: string[] = [];
  await change(root, async (images) => {
    const next = { ...images };
    for (const file of files) {
      const image = next[file];
      if (!image) continue;
      delete next[file];
      const path = join(root, file);
      if (image.after === null || digest(await readTextOrNull(path)) !== image.after) continue;
      await withFileLock(path, async () => {
        if (image.before === null) await rm(path, { force: true });
        else await writeTextAtomically(path, image.before);
      });
      restored.push(file);
    }
    return next;
  });
  return restored;
}
