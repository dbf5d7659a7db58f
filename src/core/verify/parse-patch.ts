/**
 * Which lines each file of a unified diff gained and lost, read with jsdiff's
 * `parsePatch` — git's dialect (renames, copies, mode changes, binary
 * markers, quoted names) and jsdiff's own output alike. It does not apply
 * patches. jsdiff is pure JavaScript: no Node API, no `process`; its parser
 * uses only the standard `TextDecoder` (for git's octal-quoted names).
 */
import { parsePatch as parseUnifiedDiff, type StructuredPatch } from 'diff';

export interface FilePatch {
  /** New path (old path for deletions). */
  path: string;
  oldPath: string | null;
  added: string[];
  removed: string[];
  /** git's `Binary files … differ`: no lines to read. */
  binary: boolean;
}

export type PatchReading = { ok: true; files: FilePatch[] } | { ok: false; message: string };

/** `a/src/x.ts` → `src/x.ts`; `/dev/null` → null. */
function fileName(name: string | undefined, prefix: 'a/' | 'b/'): string | null {
  if (name === undefined || name === '/dev/null') return null;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** git emits a file header without hunks only for these; any other hunkless file hides its lines. */
function explainsMissingHunks(patch: StructuredPatch): boolean {
  return patch.isBinary === true || patch.isRename === true || patch.isCopy === true || patch.isCreate === true || patch.isDelete === true || patch.newMode !== undefined;
}

function toFilePatch(patch: StructuredPatch): FilePatch | 'garbage' | string {
  const oldPath = patch.isCreate ? null : fileName(patch.oldFileName, 'a/');
  const newPath = patch.isDelete ? null : fileName(patch.newFileName, 'b/');
  const path = newPath ?? oldPath;
  if (path === null) {
    // Text after a capped patch parses as a nameless, hunkless entry; nameless hunks are lines nobody can place.
    return patch.hunks.length === 0 ? 'garbage' : 'a hunk belongs to no file';
  }
  if (patch.hunks.length === 0 && !explainsMissingHunks(patch)) return `${path} has a file header but no hunks, so its lines cannot be read`;
  const added: string[] = [];
  const removed: string[] = [];
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added.push(line.slice(1));
      else if (line.startsWith('-')) removed.push(line.slice(1));
    }
  }
  return { path, oldPath, added, removed, binary: patch.isBinary === true };
}

/**
 * Splits a unified diff into per-file added and removed lines. A patch that
 * does not parse (cut inside a hunk, hand-edited, hostile), a hunk with no
 * file, or a file header with no hunks and no git reason for it (binary,
 * rename, copy, create, delete, mode change) is `ok: false` — the caller must
 * treat it as unchecked, never as empty.
 *
 * @example
 * ```ts
 * parsePatch('diff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n');
 * // → { ok: true, files: [{ path: 'x.ts', oldPath: 'x.ts', added: ['b'], removed: ['a'], binary: false }] }
 * ```
 */
export function parsePatch(patch: string): PatchReading {
  if (patch.trim() === '') return { ok: true, files: [] };
  let parsed: StructuredPatch[];
  try {
    parsed = parseUnifiedDiff(patch);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const files: FilePatch[] = [];
  for (const entry of parsed) {
    const file = toFilePatch(entry);
    if (file === 'garbage') continue;
    if (typeof file === 'string') return { ok: false, message: file };
    files.push(file);
  }
  return { ok: true, files };
}
