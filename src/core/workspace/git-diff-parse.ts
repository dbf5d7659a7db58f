/**
 * Parsers for `git diff --name-status -z -M` and `git diff --numstat -z -M`
 * output, and the change set built from them. Pure: no I/O.
 */
import type { ChangeStatus, ChangedFile } from '../ports/index.js';
import { formatCount } from '../text/format-count.js';

export interface NameStatusEntry {
  status: ChangeStatus;
  path: string;
  from?: string;
}

const STATUS_LETTERS: Record<string, ChangeStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type-changed',
};

/**
 * Parses NUL-separated name-status output: `M\0path\0`, `R100\0old\0new\0`.
 * Unknown letters (U, X) read as modified so the gate still sees the path.
 *
 * @example
 * ```ts
 * parseNameStatus('R097\0a.txt\0b.txt\0D\0c.txt\0');
 * // → [{ status: 'renamed', from: 'a.txt', path: 'b.txt' }, { status: 'deleted', path: 'c.txt' }]
 * ```
 */
export function parseNameStatus(output: string): NameStatusEntry[] {
  const fields = output.split('\0');
  const entries: NameStatusEntry[] = [];
  let index = 0;
  while (index < fields.length) {
    const code = (fields[index] ?? '').trim();
    index++;
    if (!code) continue;
    const status = STATUS_LETTERS[code[0] ?? ''] ?? 'modified';
    if (status === 'renamed' || status === 'copied') {
      const from = fields[index] ?? '';
      const path = fields[index + 1] ?? '';
      index += 2;
      if (path) entries.push({ status, path, from });
    } else {
      const path = fields[index] ?? '';
      index++;
      if (path) entries.push({ status, path });
    }
  }
  return entries;
}

/**
 * Reads which paths are binary from NUL-separated numstat output: a binary
 * file shows `-\t-\t` instead of line counts. A rename's record is
 * `added\tdeleted\t\0old\0new\0`.
 */
export function parseBinaryPaths(output: string): Set<string> {
  const binary = new Set<string>();
  const fields = output.split('\0');
  let index = 0;
  while (index < fields.length) {
    const record = fields[index] ?? '';
    index++;
    if (!record) continue;
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(record);
    if (!match) continue;
    let path = match[3] ?? '';
    if (path === '') {
      // rename/copy: old and new path follow as separate fields
      path = fields[index + 1] ?? '';
      index += 2;
    }
    if (match[1] === '-' && match[2] === '-' && path) binary.add(path);
  }
  return binary;
}

/**
 * Builds the change set's files: staged entries (with binary flags) plus
 * ignored new files the agent wrote, reported as `untracked` so the gate sees
 * them even though they are never committed.
 */
export function buildChangedFiles(entries: readonly NameStatusEntry[], binary: ReadonlySet<string>, ignoredNew: readonly string[]): ChangedFile[] {
  const files: ChangedFile[] = entries.map((entry) => ({
    path: entry.path,
    status: entry.status,
    ...(entry.from !== undefined ? { from: entry.from } : {}),
    binary: binary.has(entry.path),
  }));
  const seen = new Set(files.map((file) => file.path));
  for (const path of ignoredNew) {
    const clean = path.replace(/\/+$/, '');
    if (!clean || seen.has(clean)) continue;
    seen.add(clean);
    files.push({ path: clean, status: 'untracked', binary: false });
  }
  return files.sort((a, b) => comparePaths(a.path, b.path));
}

/** Orders paths by UTF-16 code unit, as git does — never by locale, so the order is the same on every machine. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Splits NUL-separated path output (`git ls-files -z`) into paths. */
export function splitNul(output: string): string[] {
  return output.split('\0').filter((path) => path.length > 0);
}

/**
 * Caps a patch at `maxChars` (UTF-16 length as a cheap proxy for bytes) by
 * dropping whole files from the end, so what is left still parses: a cut
 * inside a hunk would make the whole patch unreadable. Files left out show up
 * as "missing from the patch" to the integrity check.
 *
 * @example
 * ```ts
 * capPatch(twoFilePatch, firstFileLength + 10);
 * // → the first file's diff, then '… patch truncated at … characters (… in all): 1 of 2 files shown\n'
 * ```
 */
export function capPatch(patch: string, maxChars = 200_000): string {
  if (patch.length <= maxChars) return patch;
  const starts = [...patch.matchAll(/^diff --git /gm)].map((match) => match.index);
  // Files 0..shown-1 fit whole: each ends where the next begins.
  let shown = 0;
  while (shown + 1 < starts.length && (starts[shown + 1] ?? Infinity) <= maxChars) shown++;
  const kept = shown > 0 ? patch.slice(0, starts[shown]) : '';
  const fileCount = starts.length;
  return `${kept}… patch truncated at ${formatCount(maxChars)} characters (${formatCount(patch.length)} in all): ${shown} of ${fileCount} file(s) shown\n`;
}

/**
 * Formats a commit message with git trailers (`Key: value` lines in the last
 * paragraph), the form `git interpret-trailers` reads.
 *
 * @example
 * ```ts
 * withTrailers('fix: x\n\nWhy: …', { 'Loop-Pattern': 'ci-sweeper' });
 * // → 'fix: x\n\nWhy: …\n\nLoop-Pattern: ci-sweeper\n'
 * ```
 */
export function withTrailers(message: string, trailers: Readonly<Record<string, string>>): string {
  const lines = Object.entries(trailers)
    .filter(([key]) => /^[A-Za-z0-9-]+$/.test(key))
    .map(([key, value]) => `${key}: ${value.replace(/\s*\n\s*/g, ' ').trim()}`);
  const body = message.replace(/\s+$/, '');
  return lines.length ? `${body}\n\n${lines.join('\n')}\n` : `${body}\n`;
}
