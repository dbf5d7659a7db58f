/**
 * The memory workspace's change set, built the way `git diff --find-renames`
 * reports one: real unified diffs from jsdiff with git's headers (`a/` `b/`,
 * `/dev/null`, `new file mode`, `rename from`), so the anti-gaming checks read
 * the same dialect on both workspaces. Pure: no I/O.
 */
import { formatPatch, type StructuredPatch } from 'diff';
import type { ChangeSet, ChangedFile } from '../../core/ports/index.js';
import { capPatch, comparePaths } from '../../core/workspace/git-diff-parse.js';
import { linePatch } from './memory-line-patch.js';

/** One path's content in the base and in the attempt (`null`: absent). */
export interface FileVersions {
  path: string;
  before: string | null;
  after: string | null;
}

/** git's default number of context lines. */
const CONTEXT_LINES = 3;

function gitPatch(oldName: string, newName: string, before: string, after: string, extra: Partial<StructuredPatch>): StructuredPatch {
  return Object.assign(linePatch(oldName, newName, before, after, CONTEXT_LINES), { isGit: true }, extra);
}

interface Entry {
  file: ChangedFile;
  patch: StructuredPatch;
}

/**
 * Builds a change set from each touched path's two versions. Unchanged paths
 * drop out; a deleted file whose exact content reappears under a new path is
 * a rename, as git's exact rename detection reports it (empty files too).
 *
 * @example
 * ```ts
 * buildChangeSet([{ path: 'a.ts', before: 'x\n', after: 'y\n' }]).patch;
 * // → 'diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1,1 +1,1 @@\n-x\n+y\n'
 * ```
 */
export function buildChangeSet(versions: readonly FileVersions[], patchLimit = 200_000): ChangeSet {
  const changed = versions.filter((version) => version.before !== version.after);
  const deleted = changed.filter((version) => version.after === null);
  const renamedFrom = new Set<string>();
  const entries: Entry[] = [];
  // `changed` is this call's own list (from filter): sorted in place, not copied first.
  for (const version of changed.sort((a, b) => comparePaths(a.path, b.path))) {
    const { path, before, after } = version;
    if (before === null && after !== null) {
      const source = deleted.find((candidate) => !renamedFrom.has(candidate.path) && candidate.before === after);
      if (source) {
        renamedFrom.add(source.path);
        entries.push({ file: { path, status: 'renamed', from: source.path, binary: false }, patch: gitPatch(`a/${source.path}`, `b/${path}`, after, after, { isRename: true }) });
      } else {
        entries.push({ file: { path, status: 'added', binary: false }, patch: gitPatch('/dev/null', `b/${path}`, '', after, { isCreate: true }) });
      }
    } else if (before !== null && after === null) {
      entries.push({ file: { path, status: 'deleted', binary: false }, patch: gitPatch(`a/${path}`, '/dev/null', before, '', { isDelete: true }) });
    } else if (before !== null && after !== null) {
      entries.push({ file: { path, status: 'modified', binary: false }, patch: gitPatch(`a/${path}`, `b/${path}`, before, after, {}) });
    }
  }
  const kept = renamedFrom.size === 0 ? entries : entries.filter((entry) => !(entry.file.status === 'deleted' && renamedFrom.has(entry.file.path)));
  return {
    files: kept.map((entry) => entry.file),
    patch: capPatch(kept.map((entry) => formatPatch(entry.patch)).join(''), patchLimit),
  };
}

/** Paths whose new content differs between two `versions()` lists (either may lack a path), sorted. */
export function movedSince(reviewed: readonly FileVersions[], now: readonly FileVersions[]): string[] {
  const before = new Map(reviewed.map((version) => [version.path, version.after]));
  const after = new Map(now.map((version) => [version.path, version.after]));
  return [...new Set([...before.keys(), ...after.keys()])].filter((path) => before.get(path) !== after.get(path)).sort();
}

/** A small stable string hash (FNV-1a, 32 bit) of the parts joined, for fake commit ids; the parts are hashed in place, never joined into one string. */
export function fnv1a(parts: readonly string[]): string {
  let hash = 0x811c9dc5;
  for (const text of parts) {
    for (let index = 0; index < text.length; index++) {
      hash ^= text.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193);
    }
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
