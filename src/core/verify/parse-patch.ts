/**
 * A minimal unified-diff reader: which lines each file gained and lost.
 * Enough for anti-gaming checks; it does not apply patches.
 */

export interface FilePatch {
  /** New path (old path for deletions). */
  path: string;
  oldPath: string | null;
  added: string[];
  removed: string[];
}

function unquote(path: string): string {
  if (path.startsWith('"') && path.endsWith('"')) {
    return path.slice(1, -1).replace(/\\(["\\])/g, '$1').replace(/\\t/g, '\t').replace(/\\n/g, '\n');
  }
  return path;
}

function stripPrefix(path: string): string | null {
  const clean = unquote(path.trim());
  if (clean === '/dev/null') return null;
  return clean.replace(/^[ab]\//, '');
}

/**
 * Splits a `git diff` patch into per-file added and removed lines.
 *
 * @example
 * ```ts
 * parsePatch('diff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n');
 * // → [{ path: 'x.ts', oldPath: 'x.ts', added: ['b'], removed: ['a'] }]
 * ```
 */
export function parsePatch(patch: string): FilePatch[] {
  const files: FilePatch[] = [];
  let current: FilePatch | null = null;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const match = /^diff --git (?:"?a\/)(.+?)"? (?:"?b\/)(.+?)"?$/.exec(line);
      current = { path: match?.[2] ?? '', oldPath: match?.[1] ?? null, added: [], removed: [] };
      files.push(current);
      inHunk = false;
      continue;
    }
    if (!current) continue;
    if (!inHunk && line.startsWith('--- ')) {
      current.oldPath = stripPrefix(line.slice(4));
      continue;
    }
    if (!inHunk && line.startsWith('+++ ')) {
      const next = stripPrefix(line.slice(4));
      current.path = next ?? current.oldPath ?? current.path;
      continue;
    }
    if (!inHunk && line.startsWith('rename to ')) {
      current.path = unquote(line.slice('rename to '.length));
      continue;
    }
    if (line.startsWith('@@')) {
      inHunk = true;
      continue;
    }
    if (!inHunk) continue;
    if (line.startsWith('+')) current.added.push(line.slice(1));
    else if (line.startsWith('-')) current.removed.push(line.slice(1));
  }
  return files;
}
