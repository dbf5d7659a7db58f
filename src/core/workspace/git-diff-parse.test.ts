import { describe, expect, it } from 'vitest';
import { parsePatch } from '../verify/parse-patch.js';
import { buildChangedFiles, capPatch, parseBinaryPaths, parseNameStatus, withTrailers } from './git-diff-parse.js';

describe('git diff parsing', () => {
  it('reads name-status with renames, copies, deletes and odd letters', () => {
    expect(parseNameStatus('M\0a.ts\0R087\0old name.md\0new name.md\0D\0gone.ts\0C100\0x\0y\0U\0conflict.ts\0')).toEqual([
      { status: 'modified', path: 'a.ts' },
      { status: 'renamed', from: 'old name.md', path: 'new name.md' },
      { status: 'deleted', path: 'gone.ts' },
      { status: 'copied', from: 'x', path: 'y' },
      { status: 'modified', path: 'conflict.ts' },
    ]);
    expect(parseNameStatus('')).toEqual([]);
  });

  it('finds binary paths in numstat, renames included', () => {
    expect([...parseBinaryPaths('-\t-\tlogo.png\0' + '3\t1\tsrc/a.ts\0' + '-\t-\t\0old.bin\0new.bin\0')]).toEqual(['logo.png', 'new.bin']);
  });

  it('adds ignored new files as untracked, sorted, without duplicates', () => {
    const files = buildChangedFiles([{ status: 'added', path: 'b.ts' }], new Set(), ['.env', 'node_modules/', 'b.ts']);
    expect(files).toEqual([
      { path: '.env', status: 'untracked', binary: false },
      { path: 'b.ts', status: 'added', binary: false },
      { path: 'node_modules', status: 'untracked', binary: false },
    ]);
  });

  it('caps a long patch by whole files, so what is left still parses', () => {
    const file = (name: string, lines: number) =>
      [`diff --git a/${name} b/${name}`, `--- a/${name}`, `+++ b/${name}`, `@@ -0,0 +1,${lines} @@`, ...Array.from({ length: lines }, (_, index) => `+line ${index}`), ''].join('\n');
    const patch = file('a.ts', 2) + file('b.test.ts', 40) + file('c.ts', 2);
    const capped = capPatch(patch, file('a.ts', 2).length + 30);
    expect(capped.startsWith(file('a.ts', 2))).toBe(true);
    expect(capped).not.toContain('b.test.ts');
    expect(capped).toMatch(/… patch truncated at [\d,]+ characters \([\d,]+ in all\): 1 of 3 file\(s\) shown\n$/);
    const reading = parsePatch(capped);
    expect(reading.ok && reading.files.map((entry) => entry.path)).toEqual(['a.ts']);
    // Not even the first file fits: nothing is kept rather than half a hunk.
    expect(capPatch(patch, 20)).toMatch(/^… patch truncated at 20 characters .*: 0 of 3 file\(s\) shown\n$/);
    expect(capPatch('short', 10)).toBe('short');
  });

  it('formats trailers as the last paragraph', () => {
    expect(withTrailers('subject\n\nbody\n\n', { 'Loop-Pattern': 'ci', 'Loop-Tokens': '12', 'bad key': 'x' })).toBe('subject\n\nbody\n\nLoop-Pattern: ci\nLoop-Tokens: 12\n');
  });
});
